// `ingest publish --file`: a file of 10,000 events, sent in batches, interrupted by Ctrl-C
// and then by a crash (SIGKILL) part-way, and run again to the end, makes exactly 10,000
// events, one per line, against the real service (API and worker processes). A crash
// while a recorded batch's answer is on its way: resumed, its lines are the same events.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runTsEntry, spawnProcess, typeScriptEntry } from '@ingest/test-harness';
import { describe, expect, it } from 'vitest';
import { startFaultProxy } from './fault-proxy.js';
import {
  eventsOfAccount as eventsOf,
  lastResults,
  recorded,
  untilRecorded,
  useBulkSetUp,
} from './support/bulk-publish.js';
import { newPublisher } from './support/service.js';

const CLI = 'packages/client/src/cli/main.ts';
const EVENTS = 10_000;

const setUp = useBulkSetUp('ingest-cli-');

const eventsOfAccount = (accountId: string) => eventsOf(setUp.db, accountId);

describe('ingest publish --file', () => {
  it('publishes every line exactly once, in batches, across a Ctrl-C and a crash', async () => {
    const { key, account } = await newPublisher(setUp.service);
    // In front of the service, passing every call on: to see that lines go in batches.
    const proxy = await startFaultProxy(setUp.service.url, []);
    const file = join(setUp.dir, 'events.ndjson');
    const results = `${file}.results.ndjson`;
    const run = Math.random().toString(36).slice(2, 8);
    const lines = Array.from({ length: EVENTS }, (_, n) =>
      JSON.stringify({
        event: 'article.create',
        data: { title: `Bulk ${n}`, slug: `bulk-${run}-${n}`, body: [`Line ${n + 1}.`] },
      }),
    );
    await writeFile(file, `${lines.join('\n')}\n`);
    const env = { INGEST_URL: proxy.url, INGEST_API_KEY: key.key, XDG_CONFIG_HOME: setUp.dir };
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
    expect(last.stderr).toMatch(/refused\s+0\n/);
    expect(last.stderr).toMatch(/applied\s+[1-9]\d*\n/);
    expect(last.stderr).toMatch(/failed when applied\s+0\n/);
    expect(last.stderr).toMatch(/already done \(results file\)\s+[1-9]/);

    const { rows } = await setUp.db.query<{ events: number; slugs: number }>(
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

    // Every publishing call a batch of at most 50 lines, none a single publish; the reads
    // after it are receipts, listed and read for the outcomes.
    await proxy.close();
    const posts = proxy.seen.filter((call) => call.method === 'POST');
    expect(new Set(posts.map((call) => call.path))).toEqual(
      new Set(['/api/webhooks/content/batch']),
    );
    expect(
      proxy.seen.every(
        (call) =>
          call.method === 'POST' ||
          (call.method === 'GET' && call.path.startsWith('/api/webhooks/content')),
      ),
    ).toBe(true);
    const sizes = posts.map(
      (call) => (JSON.parse(call.body) as { events: unknown[] }).events.length,
    );
    expect(Math.max(...sizes)).toBe(50);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBeGreaterThanOrEqual(EVENTS);
  }, 240_000);

  it('resumes a batch recorded by the service whose answer a crash cut off: the same events', async () => {
    const { key, account } = await newPublisher(setUp.service);
    const file = join(setUp.dir, 'cut-off.ndjson');
    const run = Math.random().toString(36).slice(2, 8);
    const lines = Array.from({ length: 120 }, (_, n) =>
      JSON.stringify({
        event: 'article.create',
        data: { title: `Cut ${n}`, slug: `cut-${run}-${n}`, body: ['x'] },
      }),
    );
    await writeFile(file, `${lines.join('\n')}\n`);
    // The first batch reaches the service, which records it; its answer never comes back.
    const proxy = await startFaultProxy(setUp.service.url, [
      { status: 0, afterPassingOn: true, hang: true },
    ]);
    const env = { INGEST_URL: proxy.url, INGEST_API_KEY: key.key, XDG_CONFIG_HOME: setUp.dir };
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

  it('says what became of every line, and resumes a corrected line without sending an accepted one again', async () => {
    const { key, account } = await newPublisher(setUp.service);
    const file = join(setUp.dir, 'mixed.ndjson');
    const results = `${file}.results.ndjson`;
    const slug = `mixed-${Math.random().toString(36).slice(2, 8)}`;
    const lines = [
      JSON.stringify({ event: 'article.create', data: { slug, title: 'Fine', body: ['x'] } }),
      'not json',
      JSON.stringify({ event: 'article.create', data: { title: '', body: [] } }),
      // Accepted, then failed by the worker: there is no such article.
      JSON.stringify({ event: 'article.update', data: { slug: `${slug}-none`, title: 'T' } }),
    ];
    await writeFile(file, lines.join('\n'));
    const env = {
      INGEST_URL: setUp.service.url,
      INGEST_API_KEY: key.key,
      XDG_CONFIG_HOME: setUp.dir,
    };
    const first = await runTsEntry(CLI, { args: ['publish', '--file', file], env });
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toMatch(/refused\s+2\n\s+INVALID_LINE\s+1\n\s+VALIDATION_FAILED\s+1\n/);
    expect(first.stderr).toMatch(/applied\s+1\n/);
    expect(first.stderr).toMatch(/failed when applied\s+1\n\s+ARTICLE_NOT_FOUND\s+1\n/);
    expect(first.stderr).not.toContain(key.key);
    const recordedFirst = await lastResults(results);
    expect(recordedFirst.get(1)).toMatchObject({ status: 'succeeded', id: expect.any(String) });
    expect(recordedFirst.get(3)).toMatchObject({
      id: expect.any(String),
      error: {
        code: 'VALIDATION_FAILED',
        errors: expect.arrayContaining([expect.objectContaining({ path: 'data.title' })]),
      },
    });
    expect(recordedFirst.get(4)).toMatchObject({
      status: 'failed',
      outcome: { code: 'ARTICLE_NOT_FOUND' },
    });
    expect(await eventsOfAccount(account.id)).toBe(3);

    // Line 3 corrected, lines 1 and 2 swapped: only line 3 is sent; line 1 (was 2), still
    // bad, is not. The outcomes cover the file's accepted lines, earlier runs' too; the
    // failure told before does not fail this run.
    [lines[0], lines[1]] = [lines[1]!, lines[0]!];
    lines[2] = JSON.stringify({
      event: 'article.create',
      data: { title: 'Now fine', body: ['z'] },
    });
    await writeFile(file, lines.join('\n'));
    const resumed = await runTsEntry(CLI, { args: ['publish', '--file', file], env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/published \(new events\)\s+1\n/);
    expect(resumed.stderr).toMatch(/already done \(results file\)\s+2\n/);
    expect(resumed.stderr).toMatch(/refused before, unchanged \(not sent\)\s+1\n/);
    expect(resumed.stderr).toMatch(/applied\s+2\n/);
    expect(resumed.stderr).toMatch(/failed when applied\s+1\n\s+ARTICLE_NOT_FOUND\s+1\n/);
    expect(await eventsOfAccount(account.id)).toBe(4);
    expect((await lastResults(results)).get(3)).toMatchObject({ status: 'succeeded', nth: 0 });

    // The same results file for another events file is refused.
    const other = join(setUp.dir, 'other.ndjson');
    await writeFile(other, lines[0]);
    const refused = await runTsEntry(CLI, {
      args: ['publish', '--file', other, '--results', results],
      env,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/another file/);
  });
});
