import { startProcess, typeScriptEntry, type RunningProcess } from '@ingest/test-harness';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './test-database.js';

export type AppProcess = RunningProcess;

/**
 * A real app process (an entry point of apps/*, TypeScript loaded by tsx) on the test database.
 * Resolves once it logs a line matching `ready`.
 */
export const startAppProcess = (
  entry: string,
  ready: RegExp,
  env: Record<string, string>,
): Promise<AppProcess> =>
  startProcess({
    name: entry,
    nodeArgs: typeScriptEntry(entry),
    env: { DATABASE_URL: TEST_DATABASE_URL, REDIS_URL: TEST_REDIS_URL, LOG_LEVEL: 'info', ...env },
    ready: { line: ready },
  });

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
