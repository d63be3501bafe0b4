// A redis-server of the bench's own on a free port: the service's Redis memory is then
// the service's alone, and nothing the bench writes can reach the machine's Redis.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from '../../test/support/free-port.js';
import { LOG_DIR } from './processes.js';

export interface PrivateRedis {
  url: string;
  port: number;
  pid: number;
  /** A client for the bench's own reads (INFO, queue resets). */
  client: Redis;
  usedMemoryBytes(): Promise<number>;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const fd = openSync(join(LOG_DIR, 'redis.log'), 'w');
  // As the README asks of production Redis: noeviction, so a job is never evicted.
  const child: ChildProcess = spawn(
    'redis-server',
    [
      ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      ...['--maxmemory-policy', 'noeviction'],
    ],
    { stdio: ['ignore', fd, fd] },
  );
  closeSync(fd);
  child.once('error', () => {}); // reported below as "did not start"
  const url = `redis://127.0.0.1:${port}`;
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  client.on('error', () => {});
  for (let tries = 0; ; tries += 1) {
    try {
      await client.connect();
      await client.ping();
      break;
    } catch {
      client.disconnect();
      if (tries > 100 || child.exitCode !== null) {
        throw new Error('redis-server did not start (is it installed and on PATH?)');
      }
      await sleep(50);
    }
  }

  return {
    url,
    port,
    pid: child.pid ?? 0,
    client,
    async usedMemoryBytes() {
      const info = await client.info('memory');
      const match = /^used_memory:(\d+)/m.exec(info);
      if (match?.[1] === undefined) throw new Error('INFO memory has no used_memory');
      return Number(match[1]);
    },
    async stop() {
      client.disconnect();
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = once(child, 'exit');
      child.kill('SIGKILL'); // it keeps nothing on disk: there is nothing to flush
      await gone;
    },
  };
}
