// The operator API: who may use it, queue state, event search and detail, replay,
// pause and resume.
import { runTsEntry } from '@ingest/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { registerAdmin } from './support/admin.js';
import {
  accept,
  articleData,
  finalReceipt,
  getReceipt,
  sendEvent,
  uniqueSlug,
} from './support/content.js';
import { expectProblem } from './support/problems.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

const GRANT_ADMIN = 'apps/api/src/cli/grant-admin.ts';

let api: TestApi;
let worker: WorkerProcess;
let admin: RegisteredAccount;
let publisher: RegisteredAccount;
let key: string;
beforeAll(async () => {
  api = await startTestApi();
  worker = await startWorkerProcess(api.tag);
  admin = await registerAdmin(api);
  publisher = await registerAccount(api);
  ({ key } = await createKey(api, publisher));
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
});

const asAdmin = (method: 'GET' | 'POST', url: string, payload?: object) =>
  api.app.inject({ method, url, headers: bearer(admin.token), ...(payload ? { payload } : {}) });

describe('operator access', () => {
  it('refuses publishers (403) and anonymous callers (401) on every operator endpoint', async () => {
    for (const [method, url] of [
      ['GET', '/api/admin/queue'],
      ['POST', '/api/admin/queue/pause'],
      ['GET', '/api/admin/events'],
      ['POST', '/api/admin/events/retry'],
      ['POST', '/api/admin/events/retry/preview'],
      ['GET', '/api/admin/queue/accounts'],
      ['PUT', `/api/admin/accounts/${publisher.id}/share`],
    ] as const) {
      expectProblem(
        await api.app.inject({ method, url, headers: bearer(publisher.token), payload: {} }),
        403,
        'FORBIDDEN',
      );
      expectProblem(await api.app.inject({ method, url, payload: {} }), 401, 'UNAUTHENTICATED');
    }
    // An API key is never an operator credential.
    expectProblem(
      await api.app.inject({
        method: 'GET',
        url: '/api/admin/queue',
        headers: { 'x-api-key': key },
      }),
      401,
      'UNAUTHENTICATED',
    );
  });

  it('grants the role only through `pnpm admin:grant`, on the server', async () => {
    const account = await registerAccount(api);
    const env = { DATABASE_URL: api.deps.config.database.url };
    expect((await runTsEntry(GRANT_ADMIN, { env })).code).toBe(2); // no email: usage
    const granted = await runTsEntry(GRANT_ADMIN, { args: [account.email.toUpperCase()], env });
    expect(granted.code, granted.stderr).toBe(0);
    expect(granted.stdout).toContain('is now an operator');
    expect(
      (
        await api.app.inject({
          method: 'GET',
          url: '/api/admin/queue',
          headers: bearer(account.token),
        })
      ).statusCode,
    ).toBe(200);
    const revoked = await runTsEntry(GRANT_ADMIN, { args: ['--revoke', account.email], env });
    expect(revoked.code).toBe(0);
    expectProblem(
      await api.app.inject({
        method: 'GET',
        url: '/api/admin/queue',
        headers: bearer(account.token),
      }),
      403,
      'FORBIDDEN',
    );
  });

  it('opens a dashboard session (HttpOnly cookie) for operators only', async () => {
    const login = (account: RegisteredAccount) =>
      api.app.inject({
        method: 'POST',
        url: '/api/admin/session',
        payload: { email: account.email, password: account.password },
      });
    expectProblem(await login(publisher), 403, 'FORBIDDEN');
    const response = await login(admin);
    expect(response.statusCode).toBe(200);
    const cookie = response.cookies.find((c) => c.name === 'ingest_admin');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    const withCookie = await api.app.inject({
      method: 'GET',
      url: '/api/admin/queue',
      cookies: { ingest_admin: cookie!.value },
    });
    expect(withCookie.statusCode).toBe(200);
    // The session cookie opens operator routes only.
    expectProblem(
      await api.app.inject({
        method: 'GET',
        url: '/api/webhooks/api-keys',
        cookies: { ingest_admin: cookie!.value },
      }),
      401,
      'UNAUTHENTICATED',
    );
  });
});

describe('the dashboard session cookie and other sites', () => {
  const sessionOf = async (account: RegisteredAccount) => {
    const response = await api.app.inject({
      method: 'POST',
      url: '/api/admin/session',
      payload: { email: account.email, password: account.password },
    });
    return response.cookies.find((c) => c.name === 'ingest_admin')!.value;
  };
  const withCookie = (
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    session: string,
    headers: Record<string, string>,
  ) => api.app.inject({ method, url, cookies: { ingest_admin: session }, headers });

  it('refuses a state-changing request another site makes the browser send', async () => {
    const session = await sessionOf(admin);
    const crossSite: Array<Record<string, string>> = [
      { origin: 'http://evil.example' },
      { 'sec-fetch-site': 'cross-site', origin: 'http://evil.example' },
      { 'sec-fetch-site': 'same-site' },
      {}, // neither header: not provably from this site
    ];
    for (const headers of crossSite) {
      for (const [method, url] of [
        ['POST', '/api/admin/queue/pause'],
        ['POST', '/api/admin/events/retry'],
        ['DELETE', '/api/admin/session'],
      ] as const) {
        expectProblem(await withCookie(method, url, session, headers), 403, 'FORBIDDEN');
      }
    }
    expect((await asAdmin('GET', '/api/admin/queue')).json().paused).toBe(false);
  });

  it('obeys the same request from the dashboard itself, and reads from anywhere', async () => {
    const session = await sessionOf(admin);
    const sameOrigin = await withCookie('POST', '/api/admin/queue/resume', session, {
      origin: 'http://localhost:80',
    });
    expect(sameOrigin.statusCode, sameOrigin.body).toBe(200);
    // The same origin however it is spelled: the default port may be left out.
    const defaultPort = await withCookie('POST', '/api/admin/queue/resume', session, {
      origin: 'http://localhost',
    });
    expect(defaultPort.statusCode, defaultPort.body).toBe(200);
    const fetchMetadata = await withCookie('POST', '/api/admin/queue/resume', session, {
      'sec-fetch-site': 'same-origin',
    });
    expect(fetchMetadata.statusCode).toBe(200);
    const read = await withCookie('GET', '/api/admin/queue', session, {
      origin: 'http://evil.example',
    });
    expect(read.statusCode).toBe(200);
    // A bearer token is not sent by browsers on their own, so it needs no such check.
    const byToken = await api.app.inject({
      method: 'POST',
      url: '/api/admin/queue/resume',
      headers: { ...bearer(admin.token), origin: 'http://evil.example' },
    });
    expect(byToken.statusCode).toBe(200);
  });
});

describe('the job board (bull-board)', () => {
  it('is read-only: anything but a read is 405, whatever its body', async () => {
    const response = await api.app.inject({
      method: 'PUT',
      url: '/dashboard/queues/api/queues/content-events/retry/failed',
      headers: {
        ...bearer(admin.token),
        'content-type': 'application/json; charset=utf-16',
      },
      payload: '[]',
    });
    expectProblem(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers.allow).toBe('GET, HEAD');
  });
});

describe('queue state', () => {
  it('reports counts per state, workers, the oldest waiting job, unfinished and failed events', async () => {
    const id = await accept(api, key, 'article.create', articleData({ slug: uniqueSlug() }));
    await finalReceipt(api, key, id);
    const failing = await accept(api, key, 'article.delete', { slug: uniqueSlug('missing') });
    expect((await finalReceipt(api, key, failing)).status).toBe('failed');
    expect((await sendEvent(api, key, 'article.create', { title: '' })).statusCode).toBe(400);
    const state = (await asAdmin('GET', '/api/admin/queue')).json();
    expect(state.paused).toBe(false);
    expect(state.workers).toBeGreaterThanOrEqual(1);
    expect(Object.keys(state.counts).sort()).toEqual([
      'active',
      'completed',
      'delayed',
      'failed',
      'paused',
      'prioritized',
      'waiting',
    ]);
    // The event log is the whole database's: other files' events count too.
    expect(state.events).toEqual({
      queued: expect.any(Number),
      processing: expect.any(Number),
      capped: false,
    });
    // Succeeded, failed and rejected events in the log: these, and any other file's.
    for (const status of ['succeeded', 'failed', 'rejected'] as const) {
      expect(state.kept[status].count).toBeGreaterThanOrEqual(1);
      expect(state.kept[status].exact || state.kept[status].count === 10_000).toBe(true);
    }
    // Past the bound, succeeded events are estimated, and only then.
    const { succeeded } = state.kept;
    if (succeeded.exact) expect(succeeded.estimate).toBeNull();
    else expect(succeeded.estimate === null || succeeded.estimate > 10_000).toBe(true);
    // The lag of the newest events applied: the one applied above at least.
    expect(state.lag.events).toBeGreaterThanOrEqual(1);
    expect(state.lag.events).toBeLessThanOrEqual(200);
    expect(state.lag.p50Seconds).toBeGreaterThanOrEqual(0);
    expect(state.lag.maxSeconds).toBeGreaterThanOrEqual(state.lag.p50Seconds);
    expect(state).not.toHaveProperty('throughput'); // GET /api/admin/history has it
  });

  it('pauses and resumes processing', async () => {
    // As a generated client sends it: Content-Type set, no body.
    const pause = await api.app.inject({
      method: 'POST',
      url: '/api/admin/queue/pause',
      headers: { ...bearer(admin.token), 'content-type': 'application/json' },
    });
    expect(pause.json()).toEqual({ paused: true });
    try {
      const id = await accept(api, key, 'article.create', articleData({ slug: uniqueSlug() }));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const state = (await asAdmin('GET', '/api/admin/queue')).json();
      expect(state.paused).toBe(true);
      expect(state.counts.paused).toBeGreaterThanOrEqual(1);
      expect(state.oldestWaitingAgeSeconds).toBeGreaterThan(0.5);
      // The event log's own count: the event is queued, whatever Redis holds.
      expect(state.events.queued).toBeGreaterThanOrEqual(1);
      expect(state.events.capped).toBe(false);
      expect(await finalReceipt(api, key, id, 1_000).catch(() => 'not finished')).toBe(
        'not finished',
      );
      expect((await asAdmin('POST', '/api/admin/queue/resume')).json()).toEqual({ paused: false });
      expect((await finalReceipt(api, key, id)).status).toBe('succeeded');
    } finally {
      await asAdmin('POST', '/api/admin/queue/resume');
    }
  });
});

describe('event search, detail and replay', () => {
  it('finds events by each filter, newest first, across accounts', async () => {
    const other = await registerAccount(api);
    const { id: otherKeyId, key: otherKey } = await createKey(api, other);
    const slug = uniqueSlug();
    const category = `Cat-${slug}`;
    const created = await accept(api, otherKey, 'article.create', articleData({ slug, category }));
    const deleted = await accept(api, otherKey, 'article.delete', { slug });
    await finalReceipt(api, otherKey, deleted);
    const missing = await accept(api, otherKey, 'article.delete', { slug });
    await finalReceipt(api, otherKey, missing);
    const search = async (query: string) =>
      (
        (await asAdmin('GET', `/api/admin/events?${query}`)).json().items as Array<{ id: string }>
      ).map((e) => e.id);

    expect(await search(`accountId=${other.id}`)).toEqual([missing, deleted, created]);
    // A handle, in any case, finds the same events; rows name the account and the key.
    expect(await search(`accountId=${other.handle.toUpperCase()}`)).toEqual([
      missing,
      deleted,
      created,
    ]);
    expect(await search('accountId=no_such_handle')).toEqual([]);
    const [row] = (await asAdmin('GET', `/api/admin/events?accountId=${other.id}&limit=1`)).json()
      .items as Array<Record<string, unknown>>;
    const keyName = (
      await api.deps.db.prisma.apiKey.findUniqueOrThrow({ where: { id: otherKeyId } })
    ).name;
    expect(row).toMatchObject({
      accountHandle: other.handle,
      apiKeyId: otherKeyId,
      apiKeyName: keyName,
    });
    expect((await asAdmin('GET', `/api/admin/events/${missing}`)).json()).toMatchObject({
      accountHandle: other.handle,
      apiKeyName: keyName,
    });
    expect(await search(`apiKeyId=${otherKeyId}&limit=2`)).toEqual([missing, deleted]);
    expect(await search(`slug=${slug}`)).toEqual([missing, deleted, created]);
    expect(await search(`slug=${slug}&status=failed`)).toEqual([missing]);
    expect(await search(`slug=${slug}&error=ARTICLE_NOT_FOUND`)).toEqual([missing]);
    expect(await search(`slug=${slug}&error=SLUG_TAKEN`)).toEqual([]);
    expect(await search(`slug=${slug}&event=article.create`)).toEqual([created]);
    expect(await search(`payload=${encodeURIComponent(JSON.stringify({ category }))}`)).toEqual([
      created,
    ]);
    const now = new Date().toISOString();
    expect(await search(`slug=${slug}&to=${encodeURIComponent(now)}`)).toHaveLength(3);
    expect(await search(`slug=${slug}&from=${encodeURIComponent(now)}`)).toEqual([]);
    // Bounds outside the ids' 48-bit clock are questions with an answer, not a 500.
    expect(await search(`accountId=${other.id}&to=0001-01-01T00%3A00%3A00Z`)).toEqual([]);
    expect(await search(`accountId=${other.id}&from=9999-12-31T23%3A59%3A59Z`)).toEqual([]);
    expect(await search(`accountId=${other.id}&from=0001-01-01T00%3A00%3A00Z`)).toHaveLength(3);
    expectProblem(
      await asAdmin('GET', '/api/admin/events?payload=not-json'),
      400,
      'VALIDATION_FAILED',
    );
    expectProblem(
      await asAdmin('GET', '/api/admin/events?accountId=ab-cd'),
      400,
      'VALIDATION_FAILED',
    );
    expectProblem(
      await asAdmin('GET', '/api/admin/events?error=not%20a%20code'),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('shows an event in detail, with every attempt and its error', async () => {
    const id = await accept(api, key, 'article.update', { slug: uniqueSlug(), title: 'x' });
    await finalReceipt(api, key, id);
    const detail = (await asAdmin('GET', `/api/admin/events/${id}`)).json();
    expect(detail).toMatchObject({
      id,
      status: 'failed',
      accountId: publisher.id,
      account: { id: publisher.id, handle: publisher.handle },
      payload: { title: 'x' },
      requestId: expect.any(String),
      attemptsLog: [{ number: 1, outcome: 'failed', error: { code: 'ARTICLE_NOT_FOUND' } }],
    });
    expectProblem(
      await asAdmin('GET', '/api/admin/events/01a20000-0000-7000-8000-000000000000'),
      404,
      'NOT_FOUND',
    );
  });

  it('replays a failed event under its own identity, once, and records the replay', async () => {
    const slug = uniqueSlug();
    const id = await accept(api, key, 'article.update', { slug, title: 'After replay' });
    expect((await finalReceipt(api, key, id)).status).toBe('failed');
    await finalReceipt(api, key, await accept(api, key, 'article.create', articleData({ slug })));

    const [first, second] = await Promise.all([
      asAdmin('POST', `/api/admin/events/${id}/retry`),
      asAdmin('POST', `/api/admin/events/${id}/retry`),
    ]);
    expect([first.statusCode, second.statusCode].sort()).toEqual([202, 409]);
    const accepted = first.statusCode === 202 ? first : second;
    expect(accepted.json()).toEqual({ id, status: 'queued' });
    const receipt = await finalReceipt(api, key, id);
    // The publisher's own receipt says an operator replayed it.
    expect(receipt).toMatchObject({
      id,
      status: 'succeeded',
      attempts: 2,
      error: null,
      replays: 1,
      lastReplayedAt: expect.any(String),
    });
    expect((await api.deps.db.prisma.article.findUnique({ where: { slug } }))?.title).toBe(
      'After replay',
    );
    const detail = (await asAdmin('GET', `/api/admin/events/${id}`)).json();
    expect(detail).toMatchObject({ replays: 1, lastReplayedAt: expect.any(String) });
    expect(detail.attemptsLog.map((a: { outcome: string }) => a.outcome)).toEqual([
      'failed',
      'succeeded',
    ]);
    expectProblem(
      await asAdmin('POST', `/api/admin/events/${id}/retry`),
      409,
      'EVENT_NOT_RETRYABLE',
    );
  });

  it('replays the failed events matching a search, failures of their own only when asked', async () => {
    const slug = uniqueSlug();
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1)
      ids.push(await accept(api, key, 'article.update', { slug, excerpt: `take ${i}` }));
    for (const id of ids) expect((await finalReceipt(api, key, id)).status).toBe('failed');
    // The first ran out of attempts on a cause outside it instead, as a long database
    // outage leaves an event.
    await api.deps.db.pool.query('UPDATE webhook_logs SET error = $2 WHERE id = $1', [
      ids[0],
      JSON.stringify({ code: 'PROCESSING_FAILED', message: 'Gave up after attempt 5' }),
    ]);
    await finalReceipt(api, key, await accept(api, key, 'article.create', articleData({ slug })));

    const preview = await asAdmin('POST', '/api/admin/events/retry/preview', { slug });
    expect(preview.json()).toEqual({
      willRetry: 1,
      leftOut: 2,
      byCode: [
        { code: 'ARTICLE_NOT_FOUND', events: 2, retried: false },
        { code: 'PROCESSING_FAILED', events: 1, retried: true },
      ],
      capped: false,
    });

    // By default only the failure a retry can fix; the others are counted, not retried.
    expect((await asAdmin('POST', '/api/admin/events/retry', { slug })).json()).toEqual({
      retried: 1,
      leftOut: 2,
    });
    expect((await finalReceipt(api, key, ids[0]!)).status).toBe('succeeded');
    expect((await getReceipt(api, key, ids[1]!)).json().status).toBe('failed');

    // Naming their code asks for them: the article exists now, so they succeed.
    const named = { slug, error: 'ARTICLE_NOT_FOUND' };
    expect((await asAdmin('POST', '/api/admin/events/retry/preview', named)).json()).toMatchObject({
      willRetry: 2,
      leftOut: 0,
    });
    expect((await asAdmin('POST', '/api/admin/events/retry', named)).json()).toEqual({
      retried: 2,
      leftOut: 0,
    });
    for (const id of ids) expect((await finalReceipt(api, key, id)).status).toBe('succeeded');
    // Replayed in their original order: the last update wins.
    expect((await api.deps.db.prisma.article.findUnique({ where: { slug } }))?.excerpt).toBe(
      'take 2',
    );
    expect((await sendEvent(api, key, 'article.delete', { slug })).statusCode).toBe(202);
  });

  it('finds, previews and retries the events that failed since a time, not those before', async () => {
    const slug = uniqueSlug();
    const update = (excerpt: string) => accept(api, key, 'article.update', { slug, excerpt });
    const before = await update('before');
    const earlier = await finalReceipt(api, key, before);
    expect(earlier.status).toBe('failed');
    // A millisecond after the earlier failure: the database's clock set finishedAt.
    const since = new Date(Date.parse(String(earlier.finishedAt)) + 1).toISOString();
    const after = [await update('after 1'), await update('after 2')];
    for (const id of after) expect((await finalReceipt(api, key, id)).status).toBe('failed');

    const query = `slug=${slug}&failedSince=${encodeURIComponent(since)}`;
    const found = await asAdmin('GET', `/api/admin/events?${query}`);
    // Newest first.
    expect(found.json().items.map((event: { id: string }) => event.id)).toEqual(
      [...after].reverse(),
    );
    expect(found.json().matches).toEqual({ count: 2, exact: true });
    // Failed events only, whatever else the search asks.
    expect(
      (await asAdmin('GET', `/api/admin/events?${query}&status=succeeded`)).json().items,
    ).toEqual([]);

    const named = { slug, error: 'ARTICLE_NOT_FOUND' };
    expect(
      (
        await asAdmin('POST', '/api/admin/events/retry/preview', { ...named, failedSince: since })
      ).json(),
    ).toMatchObject({ willRetry: 2, leftOut: 0 });
    expect((await asAdmin('POST', '/api/admin/events/retry/preview', named)).json()).toMatchObject({
      willRetry: 3,
    });
    const later = new Date(Date.now() + 60_000).toISOString();
    expect(
      (await asAdmin('POST', '/api/admin/events/retry', { ...named, failedSince: later })).json(),
    ).toEqual({ retried: 0, leftOut: 0 });

    await finalReceipt(api, key, await accept(api, key, 'article.create', articleData({ slug })));
    expect(
      (await asAdmin('POST', '/api/admin/events/retry', { ...named, failedSince: since })).json(),
    ).toEqual({ retried: 2, leftOut: 0 });
    for (const id of after) expect((await finalReceipt(api, key, id)).status).toBe('succeeded');
    expect((await getReceipt(api, key, before)).json()).toMatchObject({ status: 'failed' });
    expect((await sendEvent(api, key, 'article.delete', { slug })).statusCode).toBe(202);
  });
});
