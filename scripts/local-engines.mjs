// The PostgreSQL and Redis that `pnpm start` and `pnpm dev` run the apps against. What the
// environment names is used as it is, and must answer. Without DATABASE_URL, a PostgreSQL
// at the default address is used, and if none answers an embedded one is served from
// .local/postgres; likewise Redis, with the machine's redis-server, from .local/redis.
// Plain node: planEngines runs before `pnpm install`, so that a missing Redis is reported
// before anything slow happens.
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, isAbsolute, join, relative, resolve } from 'node:path';

const HOST = '127.0.0.1';
// The defaults of @ingest/config (DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL), with the port
// as a parameter; test/start-engines.test.ts checks that they agree.
export const localDatabaseUrl = (port) => `postgresql://postgres:postgres@${HOST}:${port}/ingest`;
export const localRedisUrl = (port) => `redis://${HOST}:${port}`;

/** Whether something accepts a TCP connection at host:port within `timeoutMs`. */
export function answers({ host, port }, timeoutMs = 1_000) {
  return new Promise((done) => {
    const socket = connect({ host, port });
    const finish = (yes) => {
      socket.destroy();
      done(yes);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

/** The TCP addresses a URL, or a list of `host:port` and URLs, names; [] if it names none. */
function addressesOf(value, defaultPort) {
  return value.split(',').flatMap((entry) => {
    const text = entry.trim();
    const url = text.includes('://') ? text : `redis://${text}`;
    if (text === '' || !URL.canParse(url)) return [];
    const { hostname, port } = new URL(url);
    // No host: a Unix socket (`postgresql:///ingest?host=/run/postgresql`), not ours to probe.
    if (hostname === '') return [];
    return [{ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port || defaultPort) }];
  });
}

/** A setting fit for a message: the password in each URL it holds replaced by ***. */
const redacted = (value) => value.replace(/(:\/\/[^:/@]*:)[^@/]*@/g, '$1***@');

/**
 * A problem if none of the addresses `name` names answers. An unparseable value is left to
 * the apps' configuration, which says what is wrong with it.
 */
async function checkExplicit(env, name, defaultPort, served) {
  const addresses = addressesOf(env[name], defaultPort);
  if (addresses.length === 0) return undefined;
  const up = await Promise.all(addresses.map((address) => answers(address)));
  if (up.some(Boolean)) return undefined;
  return `${name} (${redacted(env[name])}) does not answer; start that server, or unset ${name} to have pnpm start serve ${served}`;
}

function portSetting(env, name, fallback) {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined;
}

const onPath = (command) =>
  (process.env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, command)));

/** The one command that installs Redis here, as far as we can tell. */
export function redisInstallCommand() {
  if (process.platform === 'darwin') return 'brew install redis';
  const release = existsSync('/etc/os-release') ? readFileSync('/etc/os-release', 'utf8') : '';
  const ids = (release.match(/^ID(_LIKE)?=.*$/gm) ?? []).join(' ');
  const sudo = process.getuid?.() === 0 ? '' : 'sudo ';
  if (/debian|ubuntu/.test(ids)) return `${sudo}apt-get install redis-server`;
  if (/fedora|rhel|centos/.test(ids)) return `${sudo}dnf install redis`;
  if (/arch/.test(ids)) return `${sudo}pacman -S redis`;
  if (/alpine/.test(ids)) return `${sudo}apk add redis`;
  if (/suse/.test(ids)) return `${sudo}zypper install redis`;
  return 'apt-get install redis-server (Debian, Ubuntu), brew install redis (macOS) or dnf install redis (Fedora)';
}

/** The two servers: the variables that name one, and where one is looked for without. */
const ENGINES = {
  postgres: {
    name: 'PostgreSQL',
    variables: ['DATABASE_URL', 'DATABASE_DIRECT_URL'],
    portSetting: 'START_POSTGRES_PORT',
    port: 5432,
    url: localDatabaseUrl,
  },
  redis: {
    name: 'Redis',
    variables: ['REDIS_URL', 'REDIS_CLUSTER_NODES'],
    portSetting: 'START_REDIS_PORT',
    port: 6379,
    url: localRedisUrl,
  },
};

/**
 * One server: what the environment names must answer (`{ problem }` if it does not);
 * without, the default address, served by us (`serve`) if nothing answers there.
 */
async function planEngine(env, engine) {
  const named = engine.variables.filter((name) => env[name]);
  for (const name of named) {
    const problem = await checkExplicit(env, name, engine.port, `a ${engine.name}`);
    if (problem) return { problem };
  }
  if (named.length > 0) return { env: {}, serve: false };
  const port = portSetting(env, engine.portSetting, engine.port);
  if (port === undefined) return { problem: `${engine.portSetting} must be a port number` };
  const serve = !(await answers({ host: HOST, port }));
  return { env: { [engine.variables[0]]: engine.url(port) }, port, serve };
}

/**
 * What to run against, decided fast and without dependencies: `{ problem }` (one line,
 * the start must stop), or `{ env, postgres, redis }`: the variables the migration and
 * the apps get, and the servers to start (`{ dir, port }`, or null where one answers).
 * START_POSTGRES_PORT and START_REDIS_PORT move the default address's port (for a second
 * checkout beside the machine's own servers, and for the tests); START_STATE_DIR moves
 * .local, where the served ones keep their data.
 */
export async function planEngines(env, root) {
  const stateDir = resolve(root, env.START_STATE_DIR || '.local');
  const plan = { env: {}, postgres: null, redis: null };
  for (const [key, engine] of Object.entries(ENGINES)) {
    const planned = await planEngine(env, engine);
    if (planned.problem !== undefined) return planned;
    Object.assign(plan.env, planned.env);
    if (planned.serve) plan[key] = { port: planned.port, dir: join(stateDir, key) };
  }
  if (plan.redis && !onPath('redis-server')) {
    return {
      problem: `no Redis at ${HOST}:${plan.redis.port}, and no redis-server to start one; install it (${redisInstallCommand()}) or set REDIS_URL`,
    };
  }
  return plan;
}

/** A path as short as it can be said from here. */
export const shown = (path) => {
  const near = relative(process.cwd(), path);
  return near.startsWith('..') || isAbsolute(near) ? path : near;
};

/**
 * Starts what the plan says must be served, one line each, and returns how to stop them
 * (in the reverse order). If one fails to start, those started are stopped and it throws.
 */
export async function startEngines(plan, log = console.log) {
  const started = [];
  const stop = async () => {
    for (const engine of started.reverse()) await engine.stop();
  };
  try {
    if (plan.postgres) {
      const { startLocalPostgres } = await import('./local-postgres.mjs');
      const { port, dir } = plan.postgres;
      started.push(await startLocalPostgres(plan.postgres));
      log(`start: no PostgreSQL at ${HOST}:${port}; serving an embedded one from ${shown(dir)}`);
    }
    if (plan.redis) {
      const { startLocalRedis } = await import('./local-redis.mjs');
      const { port, dir } = plan.redis;
      started.push(await startLocalRedis(plan.redis));
      log(`start: no Redis at ${HOST}:${port}; serving one with redis-server from ${shown(dir)}`);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { stop, count: started.length };
}
