// The operators' history (GET /api/admin/history): what the API and the workers count
// each minute, per account too, and the backlog the workers sample, seen after the fact
// and after a restart of the API.
import { createApiRuntime, type ApiRuntime } from '@ingest/api/runtime';
import { loadApiConfig } from '@ingest/config';
import { createLogger } from '@ingest/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { registerAdmin } from './support/admin.js';
import { accept, articleData, finalReceipt, sendEvent, uniqueSlug } from './support/content.js';
import { expectProblem } from './support/problems.js';
import { startTestApi, type TestApi, type TestApp } from './support/test-api.js';
import { testEnv } from './support/test-env.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

const RATE_LIMIT = 30;

let api: TestApi;
let worker: WorkerProcess;
let admin: RegisteredAccount;
beforeAll(async () => {
  api = await startTestApi({ RATE_LIMIT_CONTENT_PER_ACCOUNT_PER_MINUTE: String(RATE_LIMIT) });
  worker = await startWorkerProcess(api.tag);
  admin = await registerAdmin(api);
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
});

type Point = Record<
  'accepted' | 'applied' | 'failed' | 'rejected' | 'refused' | 'depth' | 'oldestWaitingSeconds',
  number
>;
interface History {
  window: string;
  bucketSeconds: number;
  accountId: string | null;
  points: Point[];
  refusedByReason: Record<string, number>;
}

const asAdmin = (method: 'GET' | 'POST', url: string, app: TestApp = api.app) =>
  app.inject({
    method,
    url,
    headers: bearer(admin.token),
    ...(method === 'POST' ? { payload: {} } : {}),
  });

async function historyOf(account?: string, window = 'hour', app?: TestApp): Promise<History> {
  const query = new URLSearchParams({ window, ...(account === undefined ? {} : { account }) });
  const response = await asAdmin('GET', `/api/admin/history?${query.toString()}`, app);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<History>();
}

/** Each figure summed over the window, gauges at their highest. */
async function totalsOf(account?: string, window = 'hour', app?: TestApp) {
  const { points } = await historyOf(account, window, app);
  const sum = (name: keyof Point) => points.reduce((total, point) => total + point[name], 0);
  return {
    accepted: sum('accepted'),
    applied: sum('applied'),
    failed: sum('failed'),
    rejected: sum('rejected'),
    refused: sum('refused'),
    depth: Math.max(...points.map((point) => point.depth)),
  };
}

const publisher = async () => {
  const account = await registerAccount(api);
  return { account, key: (await createKey(api, account)).key };
};

describe('history', () => {
  it("counts an account's accepted, applied, failed and rejected events, apart from the others'", async () => {
    const one = await publisher();
    const other = await publisher();
    const applied = await accept(
      api,
      one.key,
      'article.create',
      articleData({ slug: uniqueSlug() }),
    );
    const failing = await accept(api, one.key, 'article.delete', { slug: uniqueSlug('missing') });
    expect((await finalReceipt(api, one.key, applied)).status).toBe('succeeded');
    expect((await finalReceipt(api, one.key, failing)).status).toBe('failed');
    expect((await sendEvent(api, one.key, 'article.create', { title: '' })).statusCode).toBe(400);

    // Counts are written about once a second, by the API and by the worker.
    await expect
      .poll(() => totalsOf(one.account.handle), { timeout: 15_000, interval: 200 })
      .toMatchObject({ accepted: 2, applied: 1, failed: 1, rejected: 1 });
    expect(await totalsOf(one.account.id)).toMatchObject({ accepted: 2, applied: 1 });
    expect(await totalsOf(other.account.handle)).toMatchObject({
      accepted: 0,
      applied: 0,
      failed: 0,
      rejected: 0,
    });
    const service = await totalsOf();
    expect(service.accepted).toBeGreaterThanOrEqual(2);
    expect(service.failed).toBeGreaterThanOrEqual(1);
  });

  it('shows a backlog that grew and drained, after it drained', async () => {
    const { account, key } = await publisher();
    expect((await asAdmin('POST', '/api/admin/queue/pause')).statusCode).toBe(200);
    let ids: string[];
    try {
      ids = await Promise.all(
        Array.from({ length: 12 }, () =>
          accept(api, key, 'article.create', articleData({ slug: uniqueSlug() })),
        ),
      );
      // The workers sample the backlog every second.
      await expect
        .poll(async () => (await totalsOf(account.handle)).depth, { timeout: 15_000 })
        .toBe(12);
    } finally {
      expect((await asAdmin('POST', '/api/admin/queue/resume')).statusCode).toBe(200);
    }
    for (const id of ids) expect((await finalReceipt(api, key, id)).status).toBe('succeeded');
    const after = await historyOf(account.handle);
    expect(Math.max(...after.points.map((point) => point.depth))).toBe(12);
    expect(Math.max(...after.points.map((point) => point.oldestWaitingSeconds))).toBeGreaterThan(0);
    // The day's buckets hold the same peak.
    const day = await historyOf(account.handle, 'day');
    expect(day.points).toHaveLength(144);
    expect(day.bucketSeconds).toBe(600);
    expect(Math.max(...day.points.map((point) => point.depth))).toBe(12);
  });

  it("counts an account's refused requests by reason", async () => {
    const { account, key } = await publisher();
    const answers = [];
    for (let sent = 0; sent <= RATE_LIMIT; sent += 1) {
      answers.push(
        (await sendEvent(api, key, 'article.create', articleData({ slug: uniqueSlug() })))
          .statusCode,
      );
    }
    expect(answers.at(-1)).toBe(429);
    await expect
      .poll(async () => (await historyOf(account.handle)).refusedByReason, { timeout: 15_000 })
      .toEqual({ over_share: 0, overloaded: 0, rate_limit: 1 });
    expect((await totalsOf(account.handle)).refused).toBe(1);
  });

  it('answers 404 for an account that does not exist, 400 for a window it does not know', async () => {
    expectProblem(await asAdmin('GET', '/api/admin/history?account=nobody_here'), 404, 'NOT_FOUND');
    expectProblem(await asAdmin('GET', '/api/admin/history?window=week'), 400, 'VALIDATION_FAILED');
  });
});

describe('history through a restart of the API', () => {
  /**
   * Another API instance on this file's database, Redis prefix and JWT secret: as one
   * process of a deployment before a restart, then the process after it.
   */
  async function startInstance(): Promise<ApiRuntime> {
    const env = testEnv(api.tag, { JWT_SECRET: api.deps.config.auth.jwtSecret });
    const runtime = await createApiRuntime(loadApiConfig(env), {
      logger: createLogger({ level: 'silent', name: 'api' }),
      connectionName: `test-api-${api.tag}-restarted`,
    });
    await runtime.app.ready();
    return runtime;
  }

  it('reads the same totals from a new API after the one that counted them closed', async () => {
    const { account, key } = await publisher();
    const before = await startInstance();
    let totals: Awaited<ReturnType<typeof totalsOf>>;
    try {
      const through = { ...api, app: before.app, deps: before.deps };
      const applied = await accept(
        through,
        key,
        'article.create',
        articleData({ slug: uniqueSlug() }),
      );
      const failing = await accept(through, key, 'article.delete', {
        slug: uniqueSlug('missing'),
      });
      expect((await sendEvent(through, key, 'article.create', { title: '' })).statusCode).toBe(400);
      expect((await finalReceipt(through, key, applied)).status).toBe('succeeded');
      expect((await finalReceipt(through, key, failing)).status).toBe('failed');
      await expect
        .poll(() => totalsOf(account.handle, 'hour', before.app), { timeout: 15_000 })
        .toMatchObject({ accepted: 2, applied: 1, failed: 1, rejected: 1 });
      totals = await totalsOf(account.handle, 'hour', before.app);
    } finally {
      await before.close();
    }

    const after = await startInstance();
    try {
      expect(await totalsOf(account.handle, 'hour', after.app)).toEqual(totals);
      expect(await totalsOf(account.handle, 'day', after.app)).toEqual(totals);
    } finally {
      await after.close();
    }
  });
});
