// `ingest publish --file`: a file of 10,000 events, sent in batches, interrupted by Ctrl-C
// and then by a crash (SIGKILL) part-way, and run again to the end, makes exactly 10,000
// events, one per line, against the real service (API and worker processes). A crash
// while a recorded batch's answer is on its way: resumed, its lines are the same events.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  runTsEntry,
  spawnProcess,
  typeScriptEntry,
  type RunningProcess,
} from '@ingest/test-harness';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from '../support/test-database.js';
import { startFaultProxy } from './fault-proxy.js';
import { newPublisher, startService, type RunningService } from './support/service.js';

const CLI = 'packages/client/src/cli/main.ts';
const EVENTS = 10_000;

let service: RunningService;
let db: pg.Pool;
let dir: string;
beforeAll(async () => {
  service = await startService();
  db = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
  dir = await mkdtemp(join(tmpdir(), 'ingest-cli-'));
}, 60_000);
afterAll(async () => {
  await service?.stop();
  await db?.end();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** Result lines recorded so far (the header aside). */
async function recorded(path: string): Promise<number> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return Math.max(0, text.split('\n').filter((line) => line.trim() !== '').length - 1);
}

async function eventsOfAccount(accountId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM webhook_logs WHERE account_id = $1`,
    [accountId],
  );
  return rows[0]!.n;
}

async function untilRecorded(path: string, lines: number, cli: RunningProcess): Promise<void> {
  for (let waited = 0; waited < 60_000; waited += 50) {
    if ((await recorded(path)) >= lines) return;
    if (cli.hasExited()) throw new Error(`the CLI exited early:\n${cli.lines.join('\n')}`);
    await sleep(50);
  }
  throw new Error(`fewer than ${lines} results after 60 s`);
}

describe('ingest publish --file', () => {
  it('publishes every line exactly once, in batches, across a Ctrl-C and a crash', async () => {
    const { key, account } = await newPublisher(service);
    // In front of the service, passing every call on: to see that lines go in batches.
    const proxy = await startFaultProxy(service.url, []);
    const file = join(dir, 'events.ndjson');
    const results = `${file}.results.ndjson`;
    const run = Math.random().toString(36).slice(2, 8);
    const lines = Array.from({ length: EVENTS }, (_, n) =>
      JSON.stringify({
        event: 'article.create',
        data: { title: `Bulk ${n}`, slug: `bulk-${run}-${n}`, body: [`Line ${n + 1}.`] },
      }),
    );
    await writeFile(file, `${lines.join('\n')}\n`);
    const env = { INGEST_URL: proxy.url, INGEST_API_KEY: key.key, XDG_CONFIG_HOME: dir };
    const args = ['publish', '--file', file, '--batch-size', '50', '--concurrency', '4'];
    const start = () =>
      spawnProcess({ name: 'ingest', nodeArgs: [...typeScriptEntry(CLI), ...args], env });

    // Ctrl-C a quarter of the way: it stops taking lines, finishes those in flight, exits 130.
    const first = start();
    await untilRecorded(results, EVENTS / 4, first);
    first.child.kill('SIGINT');
    expect(await first.stop('SIGINT', 30_000)).toBe(130);
    expect(first.lines.join('\n')).toMatch(/not sent \(interrupted\)\s+[1-9]/);
    const afterCtrlC = await recorded(results);
    expect(afterCtrlC).toBeLessThan(EVENTS);

    // A crash half-way: lines in flight are accepted but never recorded.
    const second = start();
    await untilRecorded(results, EVENTS / 2, second);
    await second.stop('SIGKILL');

    const last = await runTsEntry(CLI, { args, env, timeoutMs: 120_000 });
    expect(last.code, last.stderr).toBe(0);
    expect(last.stderr).toMatch(/failed\s+0\n/);
    expect(last.stderr).toMatch(/already done \(results file\)\s+[1-9]/);

    const { rows } = await db.query<{ events: number; slugs: number }>(
      `SELECT count(*)::int AS events, count(DISTINCT payload->>'slug')::int AS slugs
       FROM webhook_logs WHERE account_id = $1`,
      [account.id],
    );
    expect(rows[0]).toEqual({ events: EVENTS, slugs: EVENTS });
    // Every line's last result names an event, and they are the account's events.
    const byLine = new Map<number, string>();
    for (const line of (await readFile(results, 'utf8')).split('\n').slice(1)) {
      if (line.trim() === '') continue;
      const result = JSON.parse(line) as { line: number; id?: string };
      if (result.id !== undefined) byLine.set(result.line, result.id);
    }
    expect(byLine.size).toBe(EVENTS);
    expect(new Set(byLine.values()).size).toBe(EVENTS);

    // Every call a batch of at most 50 lines, none a single publish.
    await proxy.close();
    expect(new Set(proxy.seen.map((call) => call.path))).toEqual(
      new Set(['/api/webhooks/content/batch']),
    );
    const sizes = proxy.seen.map(
      (call) => (JSON.parse(call.body) as { events: unknown[] }).events.length,
    );
    expect(Math.max(...sizes)).toBe(50);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBeGreaterThanOrEqual(EVENTS);
  }, 240_000);

  it('resumes a batch recorded by the service whose answer a crash cut off: the same events', async () => {
    const { key, account } = await newPublisher(service);
    const file = join(dir, 'cut-off.ndjson');
    const run = Math.random().toString(36).slice(2, 8);
    const lines = Array.from({ length: 120 }, (_, n) =>
      JSON.stringify({
        event: 'article.create',
        data: { title: `Cut ${n}`, slug: `cut-${run}-${n}`, body: ['x'] },
      }),
    );
    await writeFile(file, `${lines.join('\n')}\n`);
    // The first batch reaches the service, which records it; its answer never comes back.
    const proxy = await startFaultProxy(service.url, [
      { status: 0, afterPassingOn: true, hang: true },
    ]);
    const env = { INGEST_URL: proxy.url, INGEST_API_KEY: key.key, XDG_CONFIG_HOME: dir };
    const args = ['publish', '--file', file, '--batch-size', '50', '--concurrency', '1'];
    try {
      const first = spawnProcess({
        name: 'ingest',
        nodeArgs: [...typeScriptEntry(CLI), ...args],
        env,
      });
      for (let waited = 0; (await eventsOfAccount(account.id)) < 50; waited += 50) {
        if (waited > 30_000)
          throw new Error(`the first batch was not recorded:\n${first.lines.join('\n')}`);
        await sleep(50);
      }
      await first.stop('SIGKILL');
      expect(await recorded(`${file}.results.ndjson`)).toBe(0);

      const resumed = await runTsEntry(CLI, { args, env, timeoutMs: 60_000 });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(/published \(new events\)\s+70\n/);
      expect(resumed.stderr).toMatch(/published before \(same key, same event\)\s+50\n/);
      expect(await eventsOfAccount(account.id)).toBe(120);
    } finally {
      await proxy.close();
    }
  }, 120_000);

  it('refuses a results file of another file, and exits 1 when a line fails', async () => {
    const { key } = await newPublisher(service);
    const file = join(dir, 'mixed.ndjson');
    await writeFile(
      file,
      [
        JSON.stringify({ event: 'article.create', data: { title: 'Fine', body: ['x'] } }),
        'not json',
        JSON.stringify({ event: 'article.create', data: { title: '', body: [] } }),
      ].join('\n'),
    );
    const env = { INGEST_URL: service.url, INGEST_API_KEY: key.key, XDG_CONFIG_HOME: dir };
    const failed = await runTsEntry(CLI, { args: ['publish', '--file', file], env });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/INVALID_LINE\s+1/);
    expect(failed.stderr).toMatch(/VALIDATION_FAILED\s+1/);
    expect(failed.stderr).not.toContain(key.key);

    await writeFile(file, JSON.stringify({ event: 'article.delete', data: { slug: 'x' } }));
    const refused = await runTsEntry(CLI, { args: ['publish', '--file', file], env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/another file/);
  });
});
