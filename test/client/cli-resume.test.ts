// `ingest publish --file` run again over a file that changed, or after a Ctrl-C, against
// the real service (API and worker processes): a line is named by its text and its
// occurrence among identical lines, never by its number, and the outcomes waited for are
// those of every accepted line of the file, earlier runs' included.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runTsEntry, spawnProcess, typeScriptEntry } from '@ingest/test-harness';
import { describe, expect, it } from 'vitest';
import { startFaultProxy } from './fault-proxy.js';
import {
  eventsOfAccount,
  lastResults,
  untilRecorded,
  useBulkSetUp,
} from './support/bulk-publish.js';
import { newPublisher } from './support/service.js';

const CLI = 'packages/client/src/cli/main.ts';

const setUp = useBulkSetUp('ingest-resume-');

const tag = () => Math.random().toString(36).slice(2, 8);
const create = (data: Record<string, unknown>) =>
  JSON.stringify({ event: 'article.create', data: { body: ['x'], ...data } });
/** Refused by the service: an empty title. */
const INVALID = create({ title: '' });

/** A new account, and `ingest publish --file <file>` as its publisher, through `url`. */
async function publisher(url = setUp.service.url) {
  const { key, account } = await newPublisher(setUp.service);
  const env = { INGEST_URL: url, INGEST_API_KEY: key.key, XDG_CONFIG_HOME: setUp.dir };
  const publish = (file: string, ...extra: string[]) =>
    runTsEntry(CLI, { args: ['publish', '--file', file, ...extra], env, timeoutMs: 120_000 });
  return { account, env, publish, events: () => eventsOfAccount(setUp.db, account.id) };
}

/** The account's accepted events, by a field of their data. */
async function acceptedBy(accountId: string, field: string): Promise<Record<string, number>> {
  const { rows } = await setUp.db.query<{ value: string; n: number }>(
    `SELECT payload->>$2 AS value, count(*)::int AS n FROM webhook_logs
     WHERE account_id = $1 AND status <> 'rejected' GROUP BY 1`,
    [accountId, field],
  );
  return Object.fromEntries(rows.map(({ value, n }) => [value, n]));
}

describe('ingest publish --file, resumed', () => {
  it('publishes a line inserted at the top, and no accepted line again when others are deleted', async () => {
    const { account, publish, events } = await publisher();
    const file = join(setUp.dir, 'inserted.ndjson');
    const run = tag();
    const article = (n: number) => create({ title: `Moved ${n}`, slug: `moved-${run}-${n}` });
    await writeFile(
      file,
      [article(1), article(2), INVALID, article(3), article(4), article(5)].join('\n'),
    );
    const first = await publish(file);
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toMatch(/refused\s+1\n\s+VALIDATION_FAILED\s+1\n/);
    expect(first.stderr).toMatch(/applied\s+5\n/);
    expect(await events()).toBe(6);

    // A new first line; the refused line deleted rather than corrected, and the last one too:
    // every line below the new one moves, and only the new one is sent.
    await writeFile(file, [article(0), article(1), article(2), article(3), article(4)].join('\n'));
    const resumed = await publish(file);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/published \(new events\)\s+1\n/);
    expect(resumed.stderr).toMatch(/published before \(same key, same event\)\s+0\n/);
    expect(resumed.stderr).toMatch(/already done \(results file\)\s+4\n/);
    expect(resumed.stderr).toMatch(/applied\s+5\n/);
    expect(await events()).toBe(7);
    const slugs = Object.fromEntries([0, 1, 2, 3, 4, 5].map((n) => [`moved-${run}-${n}`, 1]));
    expect(await acceptedBy(account.id, 'slug')).toEqual(slugs);
    expect((await lastResults(`${file}.results.ndjson`)).get(1)).toMatchObject({
      nth: 0,
      status: 'succeeded',
    });
  });

  it('publishes identical lines as one event each, and one more copy as one more', async () => {
    const { account, publish, events } = await publisher();
    const file = join(setUp.dir, 'identical.ndjson');
    const title = `Same ${tag()}`;
    const same = create({ title });
    const other = create({ title: `${title} other` });
    await writeFile(file, [same, other, same].join('\n'));
    const first = await publish(file);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/published \(new events\)\s+3\n/);
    expect(await acceptedBy(account.id, 'title')).toEqual({ [title]: 2, [`${title} other`]: 1 });

    // The other line removed, a third copy in its place: one more event, not a line
    // taken for the one that was there.
    await writeFile(file, [same, same, same].join('\n'));
    const third = await publish(file);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).toMatch(/published \(new events\)\s+1\n/);
    expect(third.stderr).toMatch(/already done \(results file\)\s+2\n/);
    expect(third.stderr).toMatch(/applied\s+3\n/);
    expect(await acceptedBy(account.id, 'title')).toEqual({ [title]: 3, [`${title} other`]: 1 });

    // Back to the other line and one copy, in another order: nothing is sent.
    await writeFile(file, [other, same].join('\n'));
    const fewer = await publish(file);
    expect(fewer.code, fewer.stderr).toBe(0);
    expect(fewer.stderr).toMatch(/published \(new events\)\s+0\n/);
    expect(fewer.stderr).toMatch(/already done \(results file\)\s+2\n/);
    expect(await events()).toBe(4);
  });

  it('does not send again a line the service refused, unchanged, wherever it moved', async () => {
    // In front of the service, passing every call on: to see what each run sends.
    const proxy = await startFaultProxy(setUp.service.url, []);
    try {
      const { publish, events } = await publisher(proxy.url);
      const file = join(setUp.dir, 'refused.ndjson');
      const run = tag();
      const article = (n: number) => create({ title: `Kept ${n}`, slug: `kept-${run}-${n}` });
      await writeFile(file, [article(1), INVALID, article(2)].join('\n'));
      const first = await publish(file);
      expect(first.code, first.stderr).toBe(1);
      expect(first.stderr).toMatch(/refused\s+1\n\s+VALIDATION_FAILED\s+1\n/);
      expect(await events()).toBe(3);
      const results = await lastResults(`${file}.results.ndjson`);
      expect(results.get(2)).toMatchObject({
        id: expect.any(String),
        error: {
          errors: expect.arrayContaining([expect.objectContaining({ path: 'data.title' })]),
        },
      });

      await writeFile(file, [article(0), article(1), INVALID, article(2)].join('\n'));
      const resumed = await publish(file);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(/published \(new events\)\s+1\n/);
      expect(resumed.stderr).toMatch(/refused\s+0\n/);
      expect(resumed.stderr).toMatch(/refused before, unchanged \(not sent\)\s+1\n/);
      expect(await events()).toBe(4);
      // The refused line went out once, in the first run's batch.
      const sent = proxy.seen
        .filter((call) => call.method === 'POST')
        .flatMap((call) => (JSON.parse(call.body) as { events: Array<{ data: unknown }> }).events)
        .map(({ data }) => JSON.stringify(data));
      expect(
        sent.filter((data) => data === JSON.stringify({ body: ['x'], title: '' })),
      ).toHaveLength(1);
      expect(sent).toHaveLength(4);
    } finally {
      await proxy.close();
    }
  });

  it("waits, after a Ctrl-C, for the earlier run's events too, and records their outcomes", async () => {
    const { env, publish, events } = await publisher();
    const file = join(setUp.dir, 'interrupted.ndjson');
    const results = `${file}.results.ndjson`;
    const run = tag();
    const LINES = 2_000;
    const lines = [
      // Accepted, then failed by the worker: there is no such article.
      JSON.stringify({ event: 'article.update', data: { slug: `none-${run}`, title: 'T' } }),
      ...Array.from({ length: LINES - 1 }, (_, n) =>
        create({ title: `Cut ${n}`, slug: `cut-${run}-${n}` }),
      ),
    ];
    await writeFile(file, lines.join('\n'));
    const args = ['publish', '--file', file, '--batch-size', '20', '--concurrency', '1'];
    const first = spawnProcess({
      name: 'ingest',
      nodeArgs: [...typeScriptEntry(CLI), ...args],
      env,
    });
    await untilRecorded(results, 100, first);
    // Ctrl-C once: the batch in flight is finished, no outcome is waited for.
    expect(await first.stop('SIGINT', 30_000)).toBe(130);
    expect(first.lines.join('\n')).toMatch(/not sent \(interrupted\)\s+[1-9]/);
    expect(first.lines.join('\n')).toMatch(/outcomes\s+not waited for/);
    const cut = await lastResults(results);
    expect([...cut.values()].every((result) => result.status === 'queued')).toBe(true);

    const resumed = await publish(file, '--batch-size', '20', '--concurrency', '1');
    // The failure is news to this run: the first one left before any outcome.
    expect(resumed.code, resumed.stderr).toBe(1);
    expect(resumed.stderr).toMatch(new RegExp(`already done \\(results file\\)\\s+${cut.size}\\n`));
    expect(resumed.stderr).toMatch(new RegExp(`applied\\s+${LINES - 1}\\n`));
    expect(resumed.stderr).toMatch(/failed when applied\s+1\n\s+ARTICLE_NOT_FOUND\s+1\n/);
    expect(resumed.stderr).toMatch(/not finished yet\s+0\n/);
    expect(await events()).toBe(LINES);
    const final = await lastResults(results);
    expect(final.size).toBe(LINES);
    expect([...final.values()].filter((result) => result.status !== 'succeeded')).toEqual([
      expect.objectContaining({
        line: 1,
        status: 'failed',
        outcome: expect.objectContaining({ code: 'ARTICLE_NOT_FOUND' }),
      }),
    ]);
  }, 120_000);

  it("resumes a results file without occurrences (an older CLI's) while the file is unchanged", async () => {
    const { publish, events } = await publisher();
    const file = join(setUp.dir, 'older.ndjson');
    const results = `${file}.results.ndjson`;
    const title = `Older ${tag()}`;
    const [a, b, c] = [
      create({ title }),
      create({ title: `${title} b` }),
      create({ title: `${title} c` }),
    ];
    await writeFile(file, [a, b, a, c].join('\n'));
    const first = await publish(file, '--outcomes', '0');
    expect(first.code, first.stderr).toBe(0);
    expect(await events()).toBe(4);

    // As an older CLI writes it: no keyedBy, no nth, no receivedAt.
    const [header, ...rest] = (await readFile(results, 'utf8')).trim().split('\n');
    const { keyedBy: _keyedBy, ...older } = JSON.parse(header!) as Record<string, unknown>;
    const olderResults = rest.map((text) => {
      const {
        nth: _nth,
        receivedAt: _receivedAt,
        ...result
      } = JSON.parse(text) as Record<string, unknown>;
      return JSON.stringify(result);
    });
    await writeFile(results, `${[JSON.stringify(older), ...olderResults].join('\n')}\n`);

    const resumed = await publish(file);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/published \(new events\)\s+0\n/);
    expect(resumed.stderr).toMatch(/already done \(results file\)\s+4\n/);
    expect(resumed.stderr).toMatch(/applied\s+4\n/);
    expect(await events()).toBe(4);

    await writeFile(file, [a, b, a, c, create({ title: `${title} d` })].join('\n'));
    const added = await publish(file);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toMatch(/published \(new events\)\s+1\n/);
    expect(await events()).toBe(5);
  });
});
