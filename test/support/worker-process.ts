import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { REPO_ROOT } from './processes.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './test-database.js';

export interface AppProcess {
  child: ChildProcess;
  /** Every line the process wrote, stdout and stderr. */
  lines: string[];
  /** Waits until a line matches, or throws after `timeoutMs`. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends `signal` and waits for the process to exit; returns its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * A real app process (an entry point of apps/*, TypeScript loaded by tsx) on the test database.
 * Resolves once it logs a line matching `ready`.
 */
export async function startAppProcess(
  entry: string,
  ready: RegExp,
  env: Record<string, string>,
): Promise<AppProcess> {
  // One node process with tsx as a loader (not the tsx CLI, which runs node as a child):
  // signals then reach the app itself, as they do in production.
  const child = spawn(process.execPath, ['--import', 'tsx', `${REPO_ROOT}${entry}`], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      DATABASE_URL: TEST_DATABASE_URL,
      REDIS_URL: TEST_REDIS_URL,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = once(child, 'exit').then(([code]) => code as number | null);

  const waitForLine = (pattern: RegExp, timeoutMs = 20_000) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const line = lines.find((candidate) => pattern.test(candidate));
        if (line !== undefined) {
          cleanup();
          resolve(line);
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(
            `${entry} never logged ${pattern}; its output:\n${lines.slice(-20).join('\n')}`,
          ),
        );
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      check();
    });

  const app: AppProcess = {
    child,
    lines,
    waitForLine,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
  await Promise.race([
    waitForLine(ready),
    exited.then((code) => {
      throw new Error(`${entry} exited (${code}) before it was ready:\n${lines.join('\n')}`);
    }),
  ]);
  return app;
}

export type WorkerProcess = AppProcess;

/** A real worker process sharing the test API's Redis prefix (hence its queue). */
export const startWorkerProcess = (
  tag: string,
  env: Record<string, string> = {},
): Promise<WorkerProcess> =>
  startAppProcess('apps/worker/src/main.ts', /"msg":"worker ready"/, {
    DATABASE_POOL_SIZE: '10',
    REDIS_KEY_PREFIX: `test:${tag}`,
    WORKER_CONCURRENCY: '8',
    // Every test file shares the test database but has a queue of its own: a reconciler
    // would pull other files' unfinished events into this file's queue. Tests about the
    // reconciler lower this (and most of them use private databases anyway).
    RECONCILE_INTERVAL_MS: '500',
    RECONCILE_AFTER_MS: '600000',
    JOB_BACKOFF_MS: '100',
    WORKER_HTTP_PORT: '0',
    ...env,
  });
