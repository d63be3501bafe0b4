// A redis-server of the caller's own on a free port: a test can stop and restart it, and a
// run can measure its memory, without touching the machine's shared Redis.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';

export interface PrivateRedis {
  url: string;
  port: number;
  /** The server's process id; another one after start(). */
  readonly pid: number;
  /** Kills the server: like production's Redis here, it keeps nothing on disk. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** Redis's own count of the memory it uses (`INFO memory`). */
  usedMemoryBytes(): Promise<number>;
}

// As the README asks of production Redis: noeviction, so that a job is never evicted.
const serverArgs = (port: number) => [
  ...['--port', String(port), '--bind', '127.0.0.1'],
  ...['--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'],
];

/** A client of a server on loopback that never retries: connect() it, and ask. */
export function loopbackClient(port: number): Redis {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {}); // a failed command or connect says what went wrong
  return client;
}

/** A client once the server answers PING; throws if it exits or stays silent for 5 s. */
async function connectWhenUp(port: number, server: ChildProcess): Promise<Redis> {
  const client = loopbackClient(port);
  for (let tries = 0; ; tries += 1) {
    try {
      await client.connect();
      await client.ping();
      return client;
    } catch {
      client.disconnect();
      if (tries > 100 || server.exitCode !== null || server.pid === undefined) {
        throw new Error(
          `redis-server on port ${port} did not start (is it installed and on PATH?)`,
        );
      }
      await sleep(50);
    }
  }
}

/** Starts the server; its output goes to `logFile`, or nowhere. */
export async function startPrivateRedis(options: { logFile?: string } = {}): Promise<PrivateRedis> {
  const port = await freePort();
  let server: ChildProcess | undefined;
  // Kept open for the caller's reads, so that measuring memory opens no new connection.
  let client: Redis | undefined;

  async function start(): Promise<void> {
    // A restart appends to the log of the first start.
    const mode = server === undefined ? 'w' : 'a';
    const sink = options.logFile === undefined ? 'ignore' : openSync(options.logFile, mode);
    server = spawn('redis-server', serverArgs(port), { stdio: ['ignore', sink, sink] });
    if (typeof sink === 'number') closeSync(sink);
    server.once('error', () => {}); // no redis-server: reported by connectWhenUp
    client = await connectWhenUp(port, server);
  }

  async function stop(): Promise<void> {
    client?.disconnect();
    client = undefined;
    if (server === undefined || server.exitCode !== null || server.signalCode !== null) return;
    const exited = once(server, 'exit');
    server.kill('SIGKILL');
    await exited;
  }

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get pid() {
      return server?.pid ?? 0;
    },
    stop,
    start,
    async usedMemoryBytes() {
      if (client === undefined) throw new Error('private redis is stopped');
      const match = /^used_memory:(\d+)/m.exec(await client.info('memory'));
      if (match?.[1] === undefined) throw new Error('INFO memory has no used_memory');
      return Number(match[1]);
    },
  };
}
