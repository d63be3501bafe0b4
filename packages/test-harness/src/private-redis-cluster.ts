// A Redis Cluster of the caller's own on loopback: masters with one replica each, from
// Debian's redis-server, so that a test can load it, count each master's commands, and
// kill a master to watch its replica take over.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { freePort } from './free-port.js';
import { loopbackClient } from './private-redis.js';
import { runCommand } from './processes/run-command.js';

export interface ClusterNodeState {
  port: number;
  role: 'master' | 'slave';
  /** Commands the node has run since it started (INFO stats). */
  commandsProcessed: number;
}

export interface PrivateRedisCluster {
  /** `127.0.0.1:port` of every node: what REDIS_CLUSTER_NODES takes. */
  nodes: string[];
  /** The nodes that answer now, and what each is. */
  state(): Promise<ClusterNodeState[]>;
  /** SIGKILLs a node; its data is in memory only, as in production here. */
  kill(port: number): Promise<void>;
  /** Starts a killed node again on its port; it rejoins as a replica of its successor. */
  restart(port: number): Promise<void>;
  /**
   * Resolves once every slot is served again (after a failover) and every running
   * replica is in sync, within `timeoutMs`.
   */
  waitUntilHealthy(timeoutMs?: number): Promise<void>;
  /** Empties every master (FLUSHALL): a run's leftovers gone before the next. */
  flush(): Promise<void>;
  destroy(): Promise<void>;
}

/** How long a silent master stays master: a failover takes about this long. */
const NODE_TIMEOUT_MS = 2_000;

const serverArgs = (port: number, dir: string) => [
  ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
  ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'],
  ...['--cluster-node-timeout', String(NODE_TIMEOUT_MS)],
  ...['--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'],
  // A replica's first sync starts at once, not after 5 s: a replica that never synced
  // refuses to take over its master.
  ...['--repl-diskless-sync-delay', '0'],
];

async function ask<Result>(port: number, command: (client: Redis) => Promise<Result>) {
  const client = loopbackClient(port);
  try {
    await client.connect();
    return await command(client);
  } finally {
    client.disconnect();
  }
}

const infoField = (info: string, field: string): string | undefined =>
  new RegExp(`^${field}:(.*)$`, 'm').exec(info)?.[1]?.trim();

async function waitFor(what: string, timeoutMs: number, ready: () => Promise<boolean>) {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`redis cluster: ${what} within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** Starts `masters` masters and as many replicas, and joins them into one cluster. */
export async function startPrivateRedisCluster(
  options: { masters?: number; logDir?: string } = {},
): Promise<PrivateRedisCluster> {
  const count = (options.masters ?? 3) * 2;
  const root = mkdtempSync(path.join(tmpdir(), 'ingest-redis-cluster-'));
  const ports: number[] = [];
  for (let i = 0; i < count; i += 1) ports.push(await freePort());
  const servers = new Map<number, ChildProcess>();

  async function start(port: number): Promise<void> {
    const dir = path.join(root, String(port));
    mkdirSync(dir, { recursive: true });
    const log =
      options.logDir === undefined ? undefined : path.join(options.logDir, `redis-${port}.log`);
    const sink = log === undefined ? 'ignore' : openSync(log, 'a');
    const server = spawn('redis-server', serverArgs(port, dir), { stdio: ['ignore', sink, sink] });
    if (typeof sink === 'number') closeSync(sink);
    server.once('error', () => {});
    servers.set(port, server);
    await waitFor(
      `node ${port} answers`,
      5_000,
      async () => (await ask(port, (c) => c.ping())) === 'PONG',
    );
  }

  async function kill(port: number): Promise<void> {
    const server = servers.get(port);
    if (server === undefined || server.exitCode !== null || server.signalCode !== null) return;
    const exited = once(server, 'exit');
    server.kill('SIGKILL');
    await exited;
  }

  /** Every slot served, seen from every running node; and every replica in sync. */
  async function healthy(): Promise<boolean> {
    for (const port of ports) {
      const server = servers.get(port);
      if (server === undefined || server.exitCode !== null || server.signalCode !== null) continue;
      const info = await ask(port, (c) => c.cluster('INFO'));
      if (infoField(info, 'cluster_state') !== 'ok') return false;
      if (infoField(info, 'cluster_slots_ok') !== '16384') return false;
      const replication = await ask(port, (c) => c.info('replication'));
      const replicaOf = infoField(replication, 'role') === 'slave';
      if (replicaOf && infoField(replication, 'master_link_status') !== 'up') return false;
    }
    return true;
  }

  try {
    await Promise.all(ports.map(start));
    const created = await runCommand('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ]);
    if (created.code !== 0) {
      throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
    }
    await waitFor('every slot served', 20_000, healthy);
  } catch (error) {
    await Promise.all(ports.map(kill));
    rmSync(root, { recursive: true, force: true });
    throw error;
  }

  async function state(): Promise<ClusterNodeState[]> {
    const states: ClusterNodeState[] = [];
    for (const port of ports) {
      const info = await ask(port, (c) => c.info()).catch(() => undefined);
      if (info === undefined) continue;
      states.push({
        port,
        role: infoField(info, 'role') === 'master' ? 'master' : 'slave',
        commandsProcessed: Number(infoField(info, 'total_commands_processed') ?? 0),
      });
    }
    return states;
  }

  return {
    nodes: ports.map((port) => `127.0.0.1:${port}`),
    state,
    kill,
    restart: start,
    waitUntilHealthy: (timeoutMs = 20_000) => waitFor('every slot served', timeoutMs, healthy),
    async flush() {
      for (const node of await state()) {
        if (node.role === 'master') await ask(node.port, (c) => c.flushall());
      }
    },
    async destroy() {
      await Promise.all(ports.map(kill));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
