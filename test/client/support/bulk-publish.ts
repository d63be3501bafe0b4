import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningProcess } from '@ingest/test-harness';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { TEST_DATABASE_URL } from '../../support/test-database.js';
import { startService, type RunningService } from './service.js';

export interface BulkSetUp {
  service: RunningService;
  db: pg.Pool;
  /** A scratch directory for the test files' event and results files. */
  dir: string;
}

/**
 * The real service (API and worker processes), a pool on the test database and a
 * scratch directory, started before the file's tests and stopped after them.
 */
export function useBulkSetUp(dirPrefix: string): BulkSetUp {
  const setUp = {} as BulkSetUp;
  beforeAll(async () => {
    setUp.service = await startService();
    setUp.db = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
    setUp.dir = await mkdtemp(join(tmpdir(), dirPrefix));
  }, 60_000);
  afterAll(async () => {
    await setUp.service?.stop();
    await setUp.db?.end();
    if (setUp.dir !== undefined) await rm(setUp.dir, { recursive: true, force: true });
  });
  return setUp;
}

/** Result lines an `ingest publish --file` has recorded so far (the header aside). */
export async function recorded(path: string): Promise<number> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return Math.max(0, text.split('\n').filter((line) => line.trim() !== '').length - 1);
}

/** Waits until the results file holds `lines` results; throws if the CLI exits first. */
export async function untilRecorded(
  path: string,
  lines: number,
  cli: RunningProcess,
): Promise<void> {
  for (let waited = 0; waited < 60_000; waited += 50) {
    if ((await recorded(path)) >= lines) return;
    if (cli.hasExited()) throw new Error(`the CLI exited early:\n${cli.lines.join('\n')}`);
    await sleep(50);
  }
  throw new Error(`fewer than ${lines} results after 60 s`);
}

/** Each line's last result in the results file, by the line's number when it was written. */
export async function lastResults(path: string): Promise<Map<number, Record<string, unknown>>> {
  const byLine = new Map<number, Record<string, unknown>>();
  for (const text of (await readFile(path, 'utf8')).split('\n').slice(1)) {
    if (text.trim() === '') continue;
    const result = JSON.parse(text) as { line: number };
    byLine.set(result.line, result);
  }
  return byLine;
}

/** The account's events, accepted and rejected. */
export async function eventsOfAccount(db: pg.Pool, accountId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM webhook_logs WHERE account_id = $1`,
    [accountId],
  );
  return rows[0]!.n;
}
