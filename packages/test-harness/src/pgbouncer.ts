// A PgBouncer of the caller's own, in transaction mode, in front of a PostgreSQL: what an
// operator puts between the service and its database. Debian's package (1.18) is the one
// used: older than 1.21, it does not carry named prepared statements across server
// connections. It refuses to run as root, so it runs as `postgres`.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freePort } from './free-port.js';
import { giveToPostgres, POSTGRES_USER, postgresDir, postgresIds } from './postgres-user.js';

export interface PrivatePgBouncer {
  /** `target` with its host and port replaced by the pooler's. */
  urlFor(target: string): string;
  /** PgBouncer's own counters (`SHOW STATS`) of one database. */
  stats(database: string): Promise<{ transactions: number; queries: number }>;
  /** Kills it: every client connection through it drops. */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Stops it and removes its files. */
  destroy(): Promise<void>;
}

/**
 * The settings that matter, and nothing else: transaction pooling, every database of the
 * target server, no authentication of its own (the machine's PostgreSQL trusts loopback).
 * Pool sizes and `ignore_startup_parameters` stay at PgBouncer's defaults, as the service
 * must work with them.
 */
function configOf(dir: string, port: number, target: URL): string {
  return [
    '[databases]',
    `* = host=${target.hostname} port=${target.port || '5432'}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'pool_mode = transaction',
    'auth_type = trust',
    `auth_file = ${join(dir, 'users.txt')}`,
    `admin_users = ${POSTGRES_USER}`,
    '',
  ].join('\n');
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SHOW VERSION');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Starts PgBouncer in front of the server of `targetUrl`; throws when it does not come up. */
export async function startPgBouncer(targetUrl: string): Promise<PrivatePgBouncer> {
  const target = new URL(targetUrl);
  const port = await freePort();
  const dir = await postgresDir('ingest-pgbouncer-');
  const user = decodeURIComponent(target.username || POSTGRES_USER);
  await writeFile(join(dir, 'users.txt'), `"${user}" ""\n"${POSTGRES_USER}" ""\n`);
  await writeFile(join(dir, 'pgbouncer.ini'), configOf(dir, port, target));
  await giveToPostgres(join(dir, 'users.txt'), join(dir, 'pgbouncer.ini'));
  const { uid, gid } = await postgresIds();
  const admin = `postgresql://${POSTGRES_USER}@127.0.0.1:${port}/pgbouncer`;
  let server: ChildProcess | undefined;

  async function start(): Promise<void> {
    const running = spawn('pgbouncer', [join(dir, 'pgbouncer.ini')], {
      stdio: 'ignore',
      uid,
      gid,
    });
    running.once('error', () => {}); // reported below, as a pooler that never answers
    server = running;
    for (let tries = 0; !(await answers(admin)); tries += 1) {
      if (tries > 100 || running.exitCode !== null) {
        running.kill('SIGKILL');
        throw new Error('PgBouncer did not start (is the pgbouncer package installed?)');
      }
      await sleep(50);
    }
  }

  async function stop(): Promise<void> {
    if (server === undefined || server.exitCode !== null || server.signalCode !== null) return;
    const exited = once(server, 'exit');
    server.kill('SIGKILL');
    await exited;
  }

  await start().catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });

  return {
    urlFor(url) {
      const through = new URL(url);
      through.hostname = '127.0.0.1';
      through.port = String(port);
      return through.toString();
    },
    async stats(database) {
      const client = new pg.Client({ connectionString: admin });
      await client.connect();
      try {
        // The admin console speaks the simple protocol only: a plain text query.
        const { rows } = await client.query<Record<string, string>>('SHOW STATS');
        const row = rows.find((stats) => stats.database === database);
        return {
          transactions: Number(row?.total_xact_count ?? 0),
          queries: Number(row?.total_query_count ?? 0),
        };
      } finally {
        await client.end();
      }
    },
    stop,
    start,
    async destroy() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
