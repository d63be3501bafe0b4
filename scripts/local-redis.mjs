// The Redis of `pnpm start` when none answers (see local-engines.mjs): the machine's
// redis-server, with its data and log in `dir`.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { answers } from './local-engines.mjs';

/** Starts redis-server on `port` and waits until it listens; returns { stop }. */
export async function startLocalRedis({ dir, port }) {
  mkdirSync(dir, { recursive: true });
  const log = join(dir, 'redis.log');
  const server = spawn(
    'redis-server',
    [
      ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--logfile', log],
      ...['--pidfile', join(dir, 'redis.pid')],
      // What the service needs of Redis (docs/operations.md): a job is never evicted, and
      // an append-only file keeps the queue across restarts.
      ...['--maxmemory-policy', 'noeviction', '--appendonly', 'yes', '--save', ''],
    ],
    // A process group of its own: Ctrl-C at the terminal reaches the apps, not the queue
    // they are draining into; it is stopped once they have gone.
    { detached: true, stdio: 'ignore' },
  );
  server.once('error', () => {}); // a failed spawn shows as an exit below
  const exited = once(server, 'exit');
  for (let tries = 0; !(await answers({ host: '127.0.0.1', port }, 200)); tries += 1) {
    if (server.exitCode !== null || server.pid === undefined || tries > 100) {
      server.kill('SIGKILL');
      const tail = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').at(-1) : '';
      throw new Error(`redis-server on port ${port} did not start: ${tail}`);
    }
    await sleep(50);
  }
  return {
    async stop() {
      if (server.exitCode !== null || server.signalCode !== null) return;
      // SIGTERM: Redis flushes its append-only file and exits.
      server.kill('SIGTERM');
      const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
