import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { createAcceptBatcher } from '@ingest/api/accept-batcher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { articleData, sendEvent, uniqueSlug } from './support/content.js';
import { startTestApi, type TestApi } from './support/test-api.js';

let api: TestApi;
let account: RegisteredAccount;
let apiKeyId: string;
let key: string;

beforeAll(async () => {
  api = await startTestApi();
  account = await registerAccount(api);
  ({ id: apiKeyId, key } = await createKey(api, account));
});
afterAll(() => api.close());

const queuedEventFor = (accountId: string, slug = uniqueSlug()) => ({
  id: uuidv7(), // event ids are UUIDv7: the event log is partitioned by their time
  accountId,
  apiKeyId,
  event: 'article.create' as const,
  payload: articleData({ slug }),
  requestId: randomUUID(),
  orderKeys: [slug],
  notifyOnFinish: false,
});

const rowsOf = (ids: string[]) =>
  api.deps.db.prisma.webhookLog.findMany({
    where: { id: { in: ids } },
    select: { id: true, status: true, sequence: true, receivedAt: true },
    orderBy: { sequence: 'asc' },
  });

describe('grouped writes of accepted events', () => {
  it('records every concurrent request, in acceptance order within each statement', async () => {
    const batcher = createAcceptBatcher(api.deps);
    const events = Array.from({ length: 300 }, () => queuedEventFor(account.id));
    const receivedAt = await Promise.all(events.map((queued) => batcher.accept(queued)));
    expect(receivedAt.every((at) => at instanceof Date)).toBe(true);

    const rows = await rowsOf(events.map((queued) => queued.id));
    const bySequence = rows.map((row) => row.id);
    expect([...bySequence].sort()).toEqual(events.map((queued) => queued.id).sort());
    // 300 events make two statements (256 rows at most each), which may run in either
    // order: concurrent requests have no order between them. Within one statement the
    // sequence follows the order the requests were handed in.
    const inOrder = (batch: typeof events) => {
      const ids = new Set<string>(batch.map((queued) => queued.id));
      expect(bySequence.filter((id) => ids.has(id))).toEqual(batch.map((queued) => queued.id));
    };
    inOrder(events.slice(0, 256));
    inOrder(events.slice(256));
    expect(rows.every((row) => row.status === 'queued')).toBe(true);
    const jobs = await Promise.all(events.map((queued) => api.deps.queue.getJob(queued.id)));
    expect(jobs.map((job) => job?.data.eventId)).toEqual(events.map((queued) => queued.id));
  });

  it('fails only the row that cannot be written, not the batch it came in', async () => {
    const batcher = createAcceptBatcher(api.deps);
    const good = [queuedEventFor(account.id), queuedEventFor(account.id)] as const;
    // An id made in the year 2501: no partition of the log takes it, so this row alone is refused.
    const orphan = { ...queuedEventFor(account.id), id: '0f44ad5b-6400-7000-8000-000000000001' };
    const outcomes = await Promise.allSettled(
      [good[0], orphan, good[1]].map((queued) => batcher.accept(queued)),
    );

    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    const rows = await rowsOf([...good, orphan].map((queued) => queued.id));
    expect(rows.map((row) => row.id).sort()).toEqual(good.map((queued) => queued.id).sort());
    expect(await api.deps.queue.getJob(orphan.id)).toBeUndefined();
  });

  it('answers each of many concurrent requests with its own event', async () => {
    const responses = await Promise.all(
      Array.from({ length: 100 }, () =>
        sendEvent(api, key, 'article.create', articleData({ slug: uniqueSlug() })),
      ),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(responses.map(() => 202));
    const ids = responses.map((response) => response.json<{ id: string }>().id);
    expect(new Set(ids).size).toBe(100);
    expect((await rowsOf(ids)).length).toBe(100);
  });
});
