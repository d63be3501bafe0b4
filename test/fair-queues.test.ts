// Between accounts, with real worker processes: one account's backlog delays its own
// events, not another's, and an account's cap on events in flight holds over workers.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount } from './support/accounts.js';
import { accept, articleData, finalReceipt, uniqueSlug } from './support/content.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

let api: TestApi;
const workers: WorkerProcess[] = [];
beforeAll(async () => {
  api = await startTestApi();
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop()));
});
afterAll(async () => {
  await api?.close();
});

async function publisher() {
  const account = await registerAccount(api);
  return { id: account.id, key: (await createKey(api, account)).key };
}

/** Accepts `count` creates of distinct slugs, `parallel` requests at a time. */
async function acceptMany(key: string, count: number, parallel = 32): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += parallel) {
    const batch = Math.min(parallel, count - i);
    ids.push(
      ...(await Promise.all(
        Array.from({ length: batch }, () =>
          accept(api, key, 'article.create', articleData({ slug: uniqueSlug('bulk') })),
        ),
      )),
    );
  }
  return ids;
}

const finishedOf = async (accountId: string): Promise<number> =>
  api.deps.db.prisma.webhookLog.count({
    where: { accountId, status: { in: ['succeeded', 'failed'] } },
  });

/**
 * The most attempts of these events that were at work at one moment. A job opens its
 * attempt after it took a slot and closes it before it gives the slot back, so their
 * times, which PostgreSQL wrote, show the cap exactly: polling the events' status would
 * miss overlaps between polls, and would count an event whose job was handed back while
 * the database was unreachable (its status stays `processing`, its slot free, until the
 * job runs again). Those attempts are closed as `interrupted` later, when the event is
 * finished by the next one, so they are left out.
 */
async function mostAttemptsAtOnce(eventIds: string[]): Promise<number> {
  const rows = await api.deps.db.pool.query<{ most: number }>({
    text: `WITH worked AS (
             SELECT started_at, finished_at FROM event_attempts
             WHERE event_id = ANY($1::uuid[]) AND outcome <> 'interrupted'
           )
           SELECT coalesce(max((SELECT count(*) FROM worked o
                                WHERE o.started_at <= w.started_at
                                  AND o.finished_at > w.started_at)), 0)::int AS most
           FROM worked w`,
    values: [eventIds],
  });
  return rows.rows[0]!.most;
}

describe('fair queues between accounts', () => {
  it("applies a quiet account's event without waiting for a busy account's backlog", async () => {
    const busy = await publisher();
    const quiet = await publisher();
    await api.deps.queues.pause(true);
    const backlog = await acceptMany(busy.key, 2_000);
    const first = await accept(api, quiet.key, 'article.create', articleData());
    await api.deps.queues.pause(false);
    workers.push(await startWorkerProcess(api.tag, { WORKER_CONCURRENCY: '16' }));

    await finalReceipt(api, quiet.key, first, 60_000);
    // In one queue, first come first served, the quiet event would have waited for the
    // whole backlog. Here it was taken among the first of the queue.
    const busyDoneBefore = await finishedOf(busy.id);
    expect(busyDoneBefore).toBeLessThan(backlog.length / 10);

    // And again while the backlog drains: an event of the quiet account goes in among the
    // next, not behind what the busy account still has queued.
    const busyLeft = backlog.length - (await finishedOf(busy.id));
    expect(busyLeft).toBeGreaterThan(backlog.length / 2);
    const second = await accept(api, quiet.key, 'article.create', articleData());
    const busyDoneAtAccept = await finishedOf(busy.id);
    await finalReceipt(api, quiet.key, second, 60_000);
    const busyDoneMeanwhile = (await finishedOf(busy.id)) - busyDoneAtAccept;
    expect(busyDoneMeanwhile).toBeLessThan(busyLeft / 4);

    // Fair is not starved: the backlog is applied in full.
    await expect.poll(() => finishedOf(busy.id), { timeout: 90_000, interval: 500 }).toBe(2_000);
  }, 150_000);

  it("holds an account's cap on events in flight over two worker processes", async () => {
    const capped = await publisher();
    await api.deps.db.prisma.account.update({
      where: { id: capped.id },
      data: { maxInFlight: 2 },
    });
    await api.deps.queues.pause(true);
    const ids = await acceptMany(capped.key, 150);
    // Started after the cap was set (each reads the accounts' shares when it starts), and
    // both before the queue resumes: one started alone could drain it before the other is up.
    for (let i = 0; i < 2; i += 1) {
      workers.push(await startWorkerProcess(api.tag, { WORKER_CONCURRENCY: '16' }));
    }
    await api.deps.queues.pause(false);
    await expect
      .poll(() => finishedOf(capped.id), { timeout: 90_000, interval: 200 })
      .toBe(ids.length);

    // Why, should it fail: a job handed back while the database was unreachable, say.
    const warnings = workers
      .flatMap((worker) => worker.lines)
      .filter((line) => /"level":"(warn|error|fatal)"/.test(line))
      .join('\n');
    const failed = await api.deps.db.prisma.webhookLog.count({
      where: { accountId: capped.id, status: 'failed' },
    });
    expect(failed, warnings).toBe(0);
    const mostAtOnce = await mostAttemptsAtOnce(ids);
    // Held, and used: two at once, not one after the other.
    expect(mostAtOnce, warnings).toBe(2);
    // Jobs past the cap parked, and were woken as slots were released: waiting for their
    // safety net (WORKER_LOCK_DURATION_MS, 30 s) instead, the drain would outlast the test.
    let parked = 0;
    for (const worker of workers) {
      const ready = worker.lines.find((line) => line.includes('"msg":"worker ready"')) ?? '{}';
      const { http } = JSON.parse(ready) as { http: string };
      const metrics = await (await fetch(`${http}/metrics`)).text();
      for (const [, n] of metrics.matchAll(/outcome="waiting_for_slot"[^}]*\} (\d+)/g)) {
        parked += Number(n);
      }
    }
    expect(parked).toBeGreaterThan(0);
  }, 120_000);
});
