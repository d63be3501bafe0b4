import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { applyMigrations, MIGRATIONS_DIR, SCHEMA_PATH } from '@ingest/db/migrations';
import { freePort } from './free-port.js';
import { POSTGRES_USER, postgresDir } from './postgres-user.js';

const run = promisify(execFile);

function binDir(): string {
  const [version] = readdirSync('/usr/lib/postgresql').sort().reverse();
  if (version === undefined)
    throw new Error('no PostgreSQL installation under /usr/lib/postgresql');
  return `/usr/lib/postgresql/${version}/bin`;
}

export interface PrivatePostgres {
  /** URL of the migrated `ingest` database on this cluster. */
  url: string;
  port: number;
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

const asPostgres = (command: string, args: string[]) =>
  run('runuser', ['-u', POSTGRES_USER, '--', `${binDir()}/${command}`, ...args]);

const urlOn = (port: number) => `postgresql://postgres:postgres@127.0.0.1:${port}/ingest`;

/** Starts and stops the cluster in `dir`/data on `port`, and removes it. */
function controlled(dir: string, port: number, url: string): PrivatePostgres {
  const data = join(dir, 'data');
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    await asPostgres('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
  };
  return {
    url,
    port,
    stop,
    async start() {
      await asPostgres('pg_ctl', [
        '-D',
        data,
        '-o',
        options,
        '-l',
        join(dir, 'log'),
        '-w',
        'start',
      ]);
    },
    async destroy() {
      await stop('immediate').catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A PostgreSQL cluster of the test's own (initdb + pg_ctl from the machine's packages)
 * on a free port, migrated, so that a test can stop and restart it without touching the
 * machine's shared server. initdb refuses to run as root: it runs as `postgres`. With
 * `migrate: false` the `ingest` database is not even created: the caller's own migration
 * run must do both.
 */
export async function startPrivatePostgres(
  options: { migrate?: boolean } = {},
): Promise<PrivatePostgres> {
  const port = await freePort();
  const dir = await postgresDir('ingest-pg-');
  await asPostgres('initdb', [
    '-D',
    join(dir, 'data'),
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  const cluster = controlled(dir, port, urlOn(port));
  await cluster.start();
  if (options.migrate === false) return cluster;
  await applyMigrations({
    databaseUrl: cluster.url,
    schemaPath: SCHEMA_PATH,
    migrationsDir: MIGRATIONS_DIR,
  });
  return cluster;
}

/**
 * A streaming replica of a private cluster (pg_basebackup -R: it follows the primary
 * from the moment it is made), on a free port of its own. initdb's default access rules
 * already let loopback connections replicate.
 */
export async function startPrivateReplica(primary: PrivatePostgres): Promise<PrivatePostgres> {
  const port = await freePort();
  const dir = await postgresDir('ingest-pg-');
  await asPostgres('pg_basebackup', [
    ...['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres'],
    ...['-D', join(dir, 'data'), '-R', '-X', 'stream', '--no-sync', '--checkpoint=fast'],
  ]);
  const replica = controlled(dir, port, urlOn(port));
  await replica.start();
  return replica;
}
