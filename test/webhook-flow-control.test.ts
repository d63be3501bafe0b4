// What a receiver can ask of outgoing webhooks: a filter on the message, a rate held across
// three delivery worker processes, and the breaker that pauses an endpoint failing for
// WEBHOOK_BREAKER_AFTER and, once resumed, delivers what waited in order per slug. Real
// processes (one content worker, three delivery workers) and real receivers on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { accept, acceptBatch, articleData, uniqueSlug } from './support/content.js';
import { startReceivers, type Received, type Receivers } from './support/receivers.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

const BREAKER_AFTER_MS = 3_000;
const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
  // An attempt every 100 ms, far more of them than the breaker's window lets happen.
  WEBHOOK_RETRY_SCHEDULE: ['0', ...Array.from({ length: 49 }, () => '100ms')].join(','),
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_BREAKER_AFTER: `${BREAKER_AFTER_MS}ms`,
};

let receivers: Receivers;
let api: TestApi;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  receivers = await startReceivers();
  api = await startTestApi(WEBHOOK_ENV);
  workers.push(await startWorkerProcess(api.tag, { ...WEBHOOK_ENV, WORKER_QUEUES: 'content' }));
  for (let i = 0; i < 3; i += 1)
    workers.push(
      await startWorkerProcess(api.tag, {
        ...WEBHOOK_ENV,
        WORKER_QUEUES: 'deliveries',
        WORKER_DELIVERY_CONCURRENCY: '16',
      }),
    );
}, 60_000);
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
  await api?.close();
  await receivers?.close();
});

const call = (account: RegisteredAccount, method: string, path: string, payload?: object) =>
  api.app.inject({
    method: method as 'GET',
    url: `/api/webhooks/endpoints${path}`,
    headers: bearer(account.token),
    ...(payload === undefined ? {} : { payload }),
  });

async function endpoint(account: RegisteredAccount, fields: Record<string, unknown>) {
  const response = await call(account, 'POST', '', fields);
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string }>().id;
}

/** What these tests read of a message: article messages' fields, and any other's data. */
interface Message {
  type: string;
  data: { article: { slug: string; category: string }; version: number; endpointId?: string };
}

const bodiesOf = (received: Received[]) => received.map((r) => JSON.parse(r.body) as Message);

/** The most requests that arrived within any 1,000 ms. */
function mostInOneSecond(received: Received[]): number {
  const times = received.map((r) => r.at).sort((a, b) => a - b);
  let most = 0;
  for (let from = 0, to = 0; to < times.length; to += 1) {
    while (times[to]! - times[from]! >= 1_000) from += 1;
    most = Math.max(most, to - from + 1);
  }
  return most;
}

describe('filters', () => {
  it(
    'delivers only what the filter passes, and writes nothing for the rest',
    { timeout: 60_000 },
    async () => {
      const account = await registerAccount(api);
      const { key } = await createKey(api, account);
      receivers.script('/sports', [{ status: 200 }]);
      const id = await endpoint(account, {
        url: `${receivers.base}/sports`,
        events: ['article.created'],
        filter: {
          and: [
            { field: 'data.article.category', eq: 'Sports' },
            { field: 'data.article.slug', prefix: 'match-' },
          ],
        },
      });
      const events = Array.from({ length: 100 }, (_, i) => ({
        event: 'article.create',
        data: articleData({
          slug: i % 5 === 0 ? uniqueSlug('match') : uniqueSlug(),
          category: i % 2 === 0 ? 'Sports' : 'News',
        }),
      }));
      await acceptBatch(api, key, events);
      // Sports on even i, a match- slug on every fifth: both on every tenth.
      await expect.poll(() => receivers.receivedAt('/sports').length, { timeout: 30_000 }).toBe(10);
      const passed = bodiesOf(receivers.receivedAt('/sports'));
      expect(passed.every((m) => m.data.article.category === 'Sports')).toBe(true);
      // Every event applied, and the 90 filtered out cost no message or delivery.
      await expect
        .poll(async () => {
          const { rows } = await api.deps.db.pool.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM webhook_logs WHERE account_id = $1 AND status = 'succeeded'`,
            [account.id],
          );
          return rows[0]?.n;
        })
        .toBe(100);
      const { rows } = await api.deps.db.pool.query<{ messages: number; deliveries: number }>(
        `SELECT (SELECT count(*)::int FROM webhook_messages WHERE account_id = $1) AS messages,
              (SELECT count(*)::int FROM webhook_deliveries WHERE endpoint_id = $2) AS deliveries`,
        [account.id, id],
      );
      expect(rows[0]).toEqual({ messages: 10, deliveries: 10 });
    },
  );

  it('refuses a filter naming a field its types lack, and shows which fields can be filtered', async () => {
    const account = await registerAccount(api);
    const refused = await call(account, 'POST', '', {
      url: `${receivers.base}/nowhere`,
      events: ['article.created'],
      filter: {
        or: [
          { field: 'data.article.slug', eq: 'a' },
          { field: 'data.colour', eq: 'red' },
        ],
      },
    });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json().errors).toEqual([expect.objectContaining({ path: 'filter.or.1.field' })]);
    const catalog = await api.app.inject({ method: 'GET', url: '/api/event-types' });
    const created = catalog
      .json<{ outgoing: Array<{ type: string; filterFields: string[] }> }>()
      .outgoing.find((m) => m.type === 'article.created');
    expect(created?.filterFields).toContain('data.article.category');
  });
});

describe('a rate per endpoint', () => {
  it(
    'holds 20 a second across three delivery workers, and delivers every message',
    { timeout: 60_000 },
    async () => {
      const account = await registerAccount(api);
      const { key } = await createKey(api, account);
      receivers.script('/limited', [{ status: 200 }]);
      await endpoint(account, {
        url: `${receivers.base}/limited`,
        events: ['article.created'],
        rate: { perSecond: 20 },
      });
      const slugs = Array.from({ length: 120 }, () => uniqueSlug());
      for (let from = 0; from < slugs.length; from += 40)
        await acceptBatch(
          api,
          key,
          slugs
            .slice(from, from + 40)
            .map((slug) => ({ event: 'article.create', data: articleData({ slug }) })),
        );
      await expect
        .poll(() => receivers.receivedAt('/limited').length, { timeout: 30_000, interval: 250 })
        .toBeGreaterThanOrEqual(120);
      const received = receivers.receivedAt('/limited');
      expect(new Set(bodiesOf(received).map((m) => m.data.article.slug))).toEqual(new Set(slugs));
      expect(received).toHaveLength(120);
      expect(mostInOneSecond(received)).toBeLessThanOrEqual(21);
    },
  );
});

describe('the breaker', () => {
  it(
    'pauses an endpoint down for its window, tells another, and resumes in order',
    { timeout: 90_000 },
    async () => {
      const account = await registerAccount(api);
      const { key } = await createKey(api, account);
      receivers.script('/down', [{ status: 503 }]);
      receivers.script('/owner', [{ status: 200 }]);
      const down = await endpoint(account, {
        url: `${receivers.base}/down`,
        events: ['article.created', 'article.updated'],
      });
      await endpoint(account, { url: `${receivers.base}/owner`, events: ['endpoint.paused'] });

      // Three slugs, each created then updated four times, while the receiver is down.
      const slugs = [uniqueSlug(), uniqueSlug(), uniqueSlug()];
      for (const slug of slugs) await accept(api, key, 'article.create', articleData({ slug }));
      const state = async () =>
        (await call(account, 'GET', `/${down}`)).json<{
          state: string;
          failingSince: string | null;
          pausedAt: string | null;
        }>();
      await expect
        .poll(async () => (await state()).failingSince, { timeout: 10_000 })
        .not.toBeNull();
      for (let round = 1; round <= 4; round += 1)
        for (const slug of slugs)
          await accept(api, key, 'article.update', { slug, title: `Round ${round}` });

      await expect
        .poll(async () => (await state()).state, { timeout: 20_000, interval: 100 })
        .toBe('paused');
      const paused = await state();
      const tookMs = Date.parse(paused.pausedAt!) - Date.parse(paused.failingSince!);
      expect(tookMs).toBeGreaterThanOrEqual(BREAKER_AFTER_MS);
      expect(tookMs).toBeLessThanOrEqual(BREAKER_AFTER_MS * 1.1);
      await expect.poll(() => receivers.receivedAt('/owner').length, { timeout: 10_000 }).toBe(1);
      expect(bodiesOf(receivers.receivedAt('/owner'))[0]).toMatchObject({
        type: 'endpoint.paused',
        data: { endpointId: down },
      });

      // Nothing waiting fails or is lost: every delivery is held, none finished.
      await expect
        .poll(
          async () => {
            const { rows } = await api.deps.db.pool.query<{ status: string; n: number }>(
              `SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1
           GROUP BY status`,
              [down],
            );
            return Object.fromEntries(rows.map((row) => [row.status, row.n]));
          },
          { timeout: 10_000 },
        )
        .toEqual({ held: 15 });

      receivers.script('/down', [{ status: 200 }]);
      const before = receivers.receivedAt('/down').length;
      const resumed = await call(account, 'POST', `/${down}/resume`);
      expect(resumed.json()).toMatchObject({ state: 'enabled', pausedAt: null });
      await expect
        .poll(() => receivers.receivedAt('/down').filter((r, i) => i >= before).length, {
          timeout: 20_000,
        })
        .toBeGreaterThanOrEqual(15);
      const after = bodiesOf(receivers.receivedAt('/down').slice(before));
      expect(after).toHaveLength(15);
      for (const slug of slugs) {
        const versions = after
          .filter((m) => m.data.article.slug === slug)
          .map((m) => m.data.version);
        expect(versions, slug).toEqual([1, 2, 3, 4, 5]);
      }
    },
  );
});
