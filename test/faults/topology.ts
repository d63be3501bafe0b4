// `pnpm topology:up` / `pnpm topology:down`: the fault suite's topology, on loopback, to
// try by hand. `up` starts it in a background process and returns once it serves: a
// private PostgreSQL with a streaming read replica and PgBouncer (transaction mode) in
// front of it, a Redis Cluster of 3 masters with a replica each, two APIs and three
// workers. `down` stops all of it. Its state and logs are in .local/topology/
// (TOPOLOGY_DIR elsewhere).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO_ROOT } from '@ingest/test-harness';
import { startCluster } from './harness.js';

export interface TopologyState {
  /** The process that holds the topology: stopping it stops everything. */
  pid: number;
  apis: string[];
  redisClusterNodes: string[];
  postgres: { primary: string; replica: string; pgbouncer: string };
  workers: number;
}

const dir = process.env.TOPOLOGY_DIR ?? path.join(REPO_ROOT, '.local', 'topology');
const statePath = path.join(dir, 'state.json');
const logPath = path.join(dir, 'topology.log');
const START_TIMEOUT_MS = 180_000;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const readState = (): TopologyState | undefined =>
  existsSync(statePath)
    ? (JSON.parse(readFileSync(statePath, 'utf8')) as TopologyState)
    : undefined;

/** Runs the topology in this process until SIGTERM or SIGINT. */
async function serve(): Promise<void> {
  const log = (line: string) => console.log(`[topology ${new Date().toISOString()}] ${line}`);
  const cluster = await startCluster({ workers: 3, log, topology: true });
  const stop = async () => {
    log('stopping');
    await cluster.destroy();
    rmSync(statePath, { force: true });
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
  const state: TopologyState = {
    pid: process.pid,
    apis: cluster.baseUrls,
    redisClusterNodes: cluster.redisCluster!.nodes,
    postgres: {
      primary: cluster.postgres.url,
      replica: cluster.replica!.url,
      pgbouncer: cluster.pooler!.urlFor(cluster.postgres.url),
    },
    workers: cluster.workerCount,
  };
  writeFileSync(statePath, `${JSON.stringify(state, null, 2)}\n`);
  log('serving');
}

async function up(): Promise<void> {
  const running = readState();
  if (running !== undefined && alive(running.pid)) {
    console.log(`the topology is already up (pid ${running.pid}):`);
    console.log(JSON.stringify(running, null, 2));
    return;
  }
  mkdirSync(dir, { recursive: true });
  rmSync(statePath, { force: true });
  const output = openSync(logPath, 'w');
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, 'serve'], {
    detached: true,
    stdio: ['ignore', output, output],
    env: process.env,
  });
  child.unref();
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const state = readState();
    if (state !== undefined) {
      console.log(JSON.stringify(state, null, 2));
      console.log(`logs: ${logPath}; stop it with pnpm topology:down`);
      return;
    }
    if (child.exitCode !== null || !alive(child.pid!) || Date.now() > deadline) {
      const tail = readFileSync(logPath, 'utf8').split('\n').slice(-20).join('\n');
      if (alive(child.pid!)) process.kill(-child.pid!, 'SIGKILL');
      throw new Error(`the topology did not start; the end of ${logPath}:\n${tail}`);
    }
    await sleep(250);
  }
}

async function down(): Promise<void> {
  const state = readState();
  if (state === undefined || !alive(state.pid)) {
    rmSync(statePath, { force: true });
    console.log('the topology is not running');
    return;
  }
  process.kill(state.pid, 'SIGTERM');
  const deadline = Date.now() + 60_000;
  while (alive(state.pid)) {
    if (Date.now() > deadline) {
      process.kill(-state.pid, 'SIGKILL');
      break;
    }
    await sleep(200);
  }
  rmSync(statePath, { force: true });
  console.log('the topology is down');
}

const commands: Record<string, () => Promise<void>> = { up, down, serve };
const command = commands[process.argv[2] ?? ''];
if (command === undefined) {
  console.error('usage: topology.ts up | down');
  process.exit(2);
}
await command();
