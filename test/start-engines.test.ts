// `pnpm start` on a machine with nothing installed: where no PostgreSQL or Redis answers
// at the default address, it serves an embedded PostgreSQL and a private redis-server, and
// the API and the worker run on them; what the environment names is never replaced.
// START_POSTGRES_PORT and START_REDIS_PORT move "the default address" to free ports, since
// the machine's own servers hold 5432 and 6379; START_STATE_DIR keeps the data out of the
// checkout's .local. The start runs with --dev (`pnpm dev`): the same path as `pnpm start`
// without its `pnpm install` and build, which must not run beside other test files.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL } from '@ingest/config';
import {
  createPublisher,
  fetchClient,
  freePort,
  newAccountFields,
  REPO_ROOT,
  runCommand,
} from '@ingest/test-harness';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript script of the repository, without types
import * as engines from '../scripts/local-engines.mjs';

const { answers, localDatabaseUrl, localRedisUrl, redisInstallCommand } = engines as {
  answers: (address: { host: string; port: number }) => Promise<boolean>;
  localDatabaseUrl: (port: number) => string;
  localRedisUrl: (port: number) => string;
  redisInstallCommand: () => string;
};

const START = ['scripts/start-local.mjs'];
const newDir = () => mkdtemp(join(tmpdir(), 'ingest-start-'));
// Reused by every start of this file: initdb runs once. Open to others (mkdtemp makes it
// 700): as root, the embedded PostgreSQL runs as the user postgres, who must enter it.
const stateDir = await newDir();
await chmod(stateDir, 0o755);
const [postgresPort, redisPort, apiPort] = [await freePort(), await freePort(), await freePort()];
const running = new Set<Started>();

/** The environment of a start on a machine where nothing is configured. */
const startEnv = (overrides: Record<string, string> = {}) => ({
  ...{ DATABASE_URL: '', DATABASE_DIRECT_URL: '', REDIS_URL: '', REDIS_CLUSTER_NODES: '' },
  START_POSTGRES_PORT: String(postgresPort),
  START_REDIS_PORT: String(redisPort),
  START_STATE_DIR: stateDir,
  JWT_SECRET: 'k'.repeat(40),
  PORT: String(apiPort),
  WORKER_HTTP_PORT: '0',
  LOG_LEVEL: 'warn',
  ...overrides,
});

const up = (port: number) => answers({ host: '127.0.0.1', port });

afterAll(async () => {
  await Promise.all([...running].map((proc) => proc.signalGroup('SIGINT', 30_000)));
  // Should a start have died without stopping its servers, they go by their pid files.
  for (const pidFile of ['postgres/postmaster.pid', 'redis/redis.pid']) {
    const path = join(stateDir, pidFile);
    const pid = existsSync(path) ? Number(readFileSync(path, 'utf8').split('\n')[0]) : 0;
    if (pid > 0) {
      try {
        process.kill(pid, 'SIGQUIT');
      } catch {
        // gone already
      }
    }
  }
  await rm(stateDir, { recursive: true, force: true });
});

/** A start run as a terminal runs a command: the leader of a process group of its own. */
interface Started {
  /** Every line it wrote, the apps' prefixed with `[api] ` and `[worker] `. */
  lines: string[];
  hasExited(): boolean;
  /**
   * Sends `signal` to the whole group, as Ctrl-C at a terminal does (pnpm, the start
   * script and whatever else runs in the foreground each get it), then SIGKILL to the group
   * after `graceMs`; resolves with the exit code.
   */
  signalGroup(signal: NodeJS.Signals, graceMs: number): Promise<number | null>;
}

function spawnStart(): Started {
  // Through pnpm, as a user runs it: pnpm must see the stop as a success too.
  const child = spawn('pnpm', ['dev'], {
    cwd: REPO_ROOT,
    // Info, for the apps' `shut down cleanly`.
    env: { ...process.env, ...startEnv({ LOG_LEVEL: 'info' }) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => lines.push(line));
  }
  // 'close', not 'exit': by then every line it wrote has been read.
  const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
  const hasExited = () => child.exitCode !== null || child.signalCode !== null;
  const group = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // the group is gone
    }
  };
  return {
    lines,
    hasExited,
    async signalGroup(signal, graceMs) {
      if (!hasExited()) group(signal);
      const timer = setTimeout(() => group('SIGKILL'), graceMs);
      try {
        return await closed;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Starts `pnpm dev`'s path and waits until the API answers ready. */
async function start(): Promise<Started> {
  const proc = spawnStart();
  running.add(proc);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const status = await fetch(`http://127.0.0.1:${apiPort}/health/ready`)
      .then((response) => response.status)
      .catch(() => 0);
    if (status === 200) return proc;
    if (proc.hasExited() || Date.now() > deadline) {
      throw new Error(`the start never served the API:\n${proc.lines.slice(-20).join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const fromApp = (line: string) => /^\[(api|worker)\] /.test(line);

/**
 * Ctrl-C at a terminal (SIGINT to the foreground process group) or a service manager's
 * SIGTERM to every process of the service: it exits 0 with one line, no failure reported
 * by pnpm, the apps drain and exit by themselves (not killed mid-drain by a second
 * signal), and nothing is left running.
 */
async function stop(proc: Started, signal: NodeJS.Signals): Promise<void> {
  expect(await proc.signalGroup(signal, 30_000)).toBe(0);
  running.delete(proc);
  const own = proc.lines.filter((line) => !fromApp(line));
  expect(own.filter((line) => /ERR_PNPM|ELIFECYCLE|failed/i.test(line))).toEqual([]);
  expect(own.filter((line) => line.startsWith('start: ')).at(-1)).toBe('start: stopped');
  for (const app of ['api', 'worker']) {
    const lines = proc.lines.filter((line) => line.startsWith(`[${app}] `));
    expect(
      lines.filter((line) => line.includes('"msg":"shut down cleanly"')),
      app,
    ).toHaveLength(1);
    // tsx watch says so when it kills an app that did not exit in time.
    expect(lines.filter((line) => /Force killing|"level":"(error|fatal)"/.test(line))).toEqual([]);
  }
  expect(await up(postgresPort)).toBe(false);
  expect(await up(redisPort)).toBe(false);
  const left = await runCommand('pgrep', ['-f', stateDir]);
  expect(left.stdout).toBe('');
}

describe('pnpm start with no PostgreSQL and no Redis at the default address', () => {
  it('agrees with the apps on the default addresses', () => {
    expect(localDatabaseUrl(5432)).toBe(DEFAULT_DATABASE_URL);
    expect(localRedisUrl(6379)).toBe(DEFAULT_REDIS_URL);
  });

  it('serves an embedded PostgreSQL and a redis-server that the API and the worker use, and stops them on exit', async () => {
    expect(await up(postgresPort)).toBe(false);
    const proc = await start();
    const served = proc.lines.filter((line) => line.startsWith('start: '));
    expect(served).toEqual([
      `start: no PostgreSQL at 127.0.0.1:${postgresPort}; serving an embedded one from ${stateDir}/postgres`,
      `start: no Redis at 127.0.0.1:${redisPort}; serving one with redis-server from ${stateDir}/redis`,
    ]);

    const api = fetchClient(`http://127.0.0.1:${apiPort}`, 40_000);
    const publisher = await createPublisher(api, newAccountFields('start-engines.test'), 1);
    const published = await api({
      method: 'POST',
      path: '/api/webhooks/content',
      headers: { 'x-api-key': publisher.apiKeys[0]!, prefer: 'wait=30' },
      body: { event: 'article.create', data: { title: 'Served embedded', body: ['Hello.'] } },
    });
    // The receipt reached `succeeded`: the worker applied the event.
    const receipt = JSON.parse(published.text) as { status: string; result: { slug: string } };
    expect(published.status, published.text).toBe(200);
    expect(receipt.status).toBe('succeeded');
    const article = await api({ method: 'GET', path: `/api/articles/${receipt.result.slug}` });
    expect(article.status).toBe(200);

    // And it is in the embedded database, not the machine's.
    const client = new pg.Client({ connectionString: localDatabaseUrl(postgresPort) });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT title FROM articles WHERE slug = $1', [
        receipt.result.slug,
      ]);
      expect(rows).toEqual([{ title: 'Served embedded' }]);
    } finally {
      await client.end();
    }

    await stop(proc, 'SIGINT');
    // Started again, it serves the same data: the cluster is made once and kept.
    const again = await start();
    expect(
      (await api({ method: 'GET', path: `/api/articles/${receipt.result.slug}` })).status,
    ).toBe(200);
    await stop(again, 'SIGTERM');
  }, 300_000);
});

describe('pnpm start stops at once, with one line, and starts nothing', () => {
  it('when an explicit DATABASE_URL or REDIS_URL does not answer: it is never replaced', async () => {
    const dead = await freePort();
    const dir = await newDir();
    try {
      for (const [name, value] of [
        ['DATABASE_URL', `postgresql://postgres:secret-pw@127.0.0.1:${dead}/ingest`],
        ['REDIS_URL', `redis://:secret-pw@127.0.0.1:${dead}`],
      ] as const) {
        const result = await runCommand(process.execPath, START, {
          env: startEnv({ START_STATE_DIR: dir, [name]: value }),
        });
        expect(result.code).toBe(1);
        expect(result.stdout).toBe('');
        expect(result.stderr.trim().split('\n')).toEqual([
          `start: ${name} (${value.replace('secret-pw', '***')}) does not answer; start that server, or unset ${name} to have pnpm start serve ${name === 'REDIS_URL' ? 'a Redis' : 'a PostgreSQL'}`,
        ]);
      }
      expect(existsSync(join(dir, 'postgres'))).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('when no Redis answers and there is no redis-server: it names the command that installs one', async () => {
    const dir = await newDir();
    try {
      const began = Date.now();
      // A PATH with nothing on it: no redis-server (node itself is named in full).
      const result = await runCommand(process.execPath, START, {
        env: startEnv({ START_STATE_DIR: dir, PATH: dir }),
      });
      expect(Date.now() - began).toBeLessThan(5_000);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(redisInstallCommand()).toMatch(/(apt-get|brew|dnf|pacman|apk|zypper).* redis/);
      expect(result.stderr.trim().split('\n')).toEqual([
        `start: no Redis at 127.0.0.1:${redisPort}, and no redis-server to start one; install it (${redisInstallCommand()}) or set REDIS_URL`,
      ]);
      // Before anything slow: no PostgreSQL was made or started.
      expect(existsSync(join(dir, 'postgres'))).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
