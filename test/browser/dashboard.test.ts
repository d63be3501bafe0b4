// The operators' dashboard in a real browser, against the real API over HTTP and a real
// worker process: who gets in, live queue counts, and finding and retrying a failed event;
// the event log's storage; webhook endpoints and resending their failed deliveries.
import { copyFile, mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { REPO_ROOT } from '@ingest/test-harness';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, registerAccount, type RegisteredAccount } from '../support/accounts.js';
import { registerAdmin } from '../support/admin.js';
import { accept, articleData, finalReceipt, uniqueSlug } from '../support/content.js';
import { startReceivers, type Receivers } from '../support/receivers.js';
import { startTestApi, type TestApi } from '../support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';
import { launchBrowser, submitSearch, type TestBrowser } from './browser.js';

const ARTIFACTS = `${REPO_ROOT}test/artifacts`;
const SCREENSHOT = `${ARTIFACTS}/dashboard.png`;
const STEP_TIMEOUT_MS = 60_000;

/** Deliveries go to a loopback receiver, tried once each. */
const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
  WEBHOOK_RETRY_SCHEDULE: '0',
};

let api: TestApi;
let receivers: Receivers;
let worker: WorkerProcess;
let browser: TestBrowser;
let page: Page;
let base: string;
let admin: RegisteredAccount;
let publisher: RegisteredAccount;
let key: string;

beforeAll(async () => {
  receivers = await startReceivers();
  api = await startTestApi(WEBHOOK_ENV);
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  [worker, browser, admin, publisher] = await Promise.all([
    // Every worker's outbox reconciler re-queues any account's stuck events onto its own
    // queue; with the shared test database it would count other files' events as ours.
    startWorkerProcess(api.tag, { ...WEBHOOK_ENV, RECONCILE_AFTER_MS: '600000' }),
    launchBrowser(),
    registerAdmin(api),
    registerAccount(api),
  ]);
  ({ key } = await createKey(api, publisher));
  page = browser.page;
});
afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  await api?.close();
  await receivers?.close();
});

const text = async (testid: string) => (await page.getByTestId(testid).textContent()) ?? '';
/** A time as a `datetime-local` field takes it: local time, to the second. */
const localInput = (ms: number) => {
  const at = new Date(ms);
  const two = (value: number) => String(value).padStart(2, '0');
  return (
    `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}` +
    `T${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`
  );
};
const count = async (name: string) => Number(await text(`count-${name}`));
/** expect.poll with room for a busy machine: the whole suite runs files in parallel. */
const eventually = <Value>(read: () => Promise<Value>, timeout = 10_000) =>
  expect.poll(read, { timeout });

async function logIn(account: RegisteredAccount): Promise<void> {
  await page.getByTestId('login-email').fill(account.email);
  await page.getByTestId('login-password').fill(account.password);
  await page.getByTestId('login-submit').click();
}

describe('dashboard', () => {
  it('lets only operators in', { timeout: STEP_TIMEOUT_MS }, async () => {
    const anonymous = await fetch(`${base}/dashboard/queues`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const publisherBoard = await fetch(`${base}/dashboard/queues`, {
      headers: bearer(publisher.token),
    });
    expect(publisherBoard.status).toBe(403);

    // Without a session the page is the login form.
    await page.goto(`${base}/dashboard/`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/login');
    await logIn(publisher);
    await eventually(() => text('login-error')).toBe('This account is not an operator');
    expect((await browser.context.cookies()).map((cookie) => cookie.name)).not.toContain(
      'ingest_admin',
    );
  });

  it(
    'shows the queue live, paused and resumed from the page',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      await logIn(admin);
      await page.waitForURL(`${base}/dashboard/`);
      await eventually(() => text('queue-state')).toBe('running');
      await eventually(() => text('queue-workers')).toMatch(/^[1-9]\d*$/);

      // Pausing asks first; declined, nothing stops.
      page.once('dialog', (dialog) => void dialog.dismiss());
      await page.getByTestId('pause-queue').click();
      await page.waitForTimeout(2_500); // a poll of the queue's state in between
      expect(await text('queue-state')).toBe('running');
      let question = '';
      page.once('dialog', (dialog) => {
        question = dialog.message();
        void dialog.accept();
      });
      await page.getByTestId('pause-queue').click();
      await eventually(() => text('queue-state')).toBe('paused');
      expect(question).toContain('Every worker stops taking jobs');
      try {
        const ids = [];
        for (let i = 0; i < 30; i += 1)
          ids.push(await accept(api, key, 'article.create', articleData({ slug: uniqueSlug() })));
        // The page polls every 2 s: the waiting jobs show up without a reload.
        await eventually(() => count('waiting')).toBe(30);
        expect(await count('paused')).toBe(30);
        // The headline figure is the event log's: at least these 30 (other tests share it).
        expect(Number(await text('events-queued'))).toBeGreaterThanOrEqual(30);
        expect(await text('queue-oldest')).not.toBe('—');
        // Who is waiting: the publisher's row in the accounts panel (polled every 5 s).
        const mine = page.locator(`[data-account="${publisher.id}"]`);
        await eventually(async () => mine.getByTestId('account-queued').textContent()).toBe('30');
        expect(await mine.getByTestId('account-oldest').textContent()).not.toBe('—');

        await page.getByTestId('resume-queue').click();
        await eventually(() => text('queue-state')).toBe('running');
        await eventually(() => count('waiting'), 20_000).toBe(0);
        for (const id of ids) expect((await finalReceipt(api, key, id)).status).toBe('succeeded');
        // Applied: the last hour's succeeded (this file's history) counts them, the lag is
        // measured over the newest applied, and the log's succeeded are counted or, past
        // 10,000 (the test database is shared), estimated.
        await eventually(async () => Number(await text('events-succeeded'))).toBeGreaterThanOrEqual(
          30,
        );
        const duration = /^(\d+ ms|\d+(\.\d)? s|\d+ min \d+ s|\d+ h \d+ min)$/;
        expect(await text('events-lag-p50')).toMatch(duration);
        expect(await text('events-lag-max')).toMatch(duration);
        expect(await text('lag-note')).toMatch(/^Lag: accepted → applied, of the \d+ newest/);
        expect(await text('events-succeeded-kept')).toMatch(/^(\d+|\d+\+|≈ \S+)$/);
      } finally {
        await api.app.inject({
          method: 'POST',
          url: '/api/admin/queue/resume',
          headers: bearer(admin.token),
        });
      }
      await eventually(() => count('completed')).toBeGreaterThanOrEqual(30);
    },
  );

  it(
    'shows a worker count Redis would not give as unknown',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      // The machine's Redis lists its clients; where a managed one refuses, the API says null.
      const queueState = `${base}/api/admin/queue`;
      await page.route(queueState, async (route) => {
        const response = await route.fetch();
        await route.fulfill({ response, json: { ...(await response.json()), workers: null } });
      });
      try {
        await eventually(() => text('queue-workers')).toBe('unknown');
      } finally {
        await page.unroute(queueState);
      }
      await eventually(() => text('queue-workers')).toMatch(/^[1-9]\d*$/);
    },
  );

  it("shows the event log's storage", { timeout: STEP_TIMEOUT_MS }, async () => {
    await eventually(() => text('storage-retention')).toBe('30 days');
    const rows = (state: string) =>
      page.locator(`[data-testid="storage-row"][data-state="${state}"]`).count();
    expect(await rows('current')).toBeGreaterThan(0);
    expect(await rows('future')).toBeGreaterThan(0);
    expect(await text('storage-next-drop')).toMatch(/^webhook_logs_\w+, /);
  });

  it(
    "shows an endpoint's failures and resends its failed messages",
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      const path = `/dashboard-${uniqueSlug()}`;
      receivers.script(path, [{ status: 500, body: 'down for a moment' }]);
      const created = await api.app.inject({
        method: 'POST',
        url: '/api/webhooks/endpoints',
        headers: bearer(publisher.token),
        payload: { url: `${receivers.base}${path}` },
      });
      const { id } = created.json<{ id: string }>();
      await api.app.inject({
        method: 'POST',
        url: `/api/webhooks/endpoints/${id}/test`,
        headers: bearer(publisher.token),
      });
      await expect.poll(() => receivers.receivedAt(path).length, { timeout: 15_000 }).toBe(1);

      const row = page.locator(`[data-testid="endpoint-row"][data-endpoint="${id}"]`);
      // The panel polls every 10 s: a reload shows the failure sooner.
      await page.reload();
      await eventually(() => row.getAttribute('data-state'), 20_000).toBe('failing');
      expect(await row.getByTestId('endpoint-rate').textContent()).toBe('0%');
      expect(await row.getByTestId('endpoint-last-error').textContent()).toContain('500');

      receivers.script(path, [{ status: 204 }]);
      page.once('dialog', (dialog) => void dialog.accept());
      await row.getByTestId('resend-failed').click();
      await eventually(() => text('endpoints-notice')).toContain('1 failed message sent again');
      await expect.poll(() => receivers.receivedAt(path).length, { timeout: 15_000 }).toBe(2);
      await page.reload();
      await eventually(() => row.getAttribute('data-state'), 20_000).toBe('enabled');
      expect(await row.getByTestId('endpoint-rate').textContent()).toBe('50%');
    },
  );

  it(
    'finds an account by handle and pages through its events with "load more"',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      await page.getByTestId('filter-accountId').fill(publisher.handle.toUpperCase());
      await submitSearch(page);
      const rows = page.getByTestId('event-row');
      await eventually(() => rows.count()).toBe(25);
      // Rows name their account by its handle, the id one hover away.
      const account = rows.first().getByTestId('event-account');
      expect(await account.textContent()).toBe(publisher.handle);
      expect(await account.getAttribute('title')).toBe(publisher.id);
      // A filter the API refuses leaves its error alone, not the last search's rows under it.
      await page.getByTestId('filter-payload').fill('{"category":');
      await submitSearch(page);
      await eventually(() => rows.count()).toBe(0);
      expect(await page.getByTestId('search-error').isVisible()).toBe(true);
      expect(await page.getByTestId('load-more').isHidden()).toBe(true);
      await page.getByTestId('filter-payload').fill('');
      await submitSearch(page);
      await eventually(() => rows.count()).toBe(25);
      await page.getByTestId('load-more').click();
      await eventually(() => rows.count()).toBe(30);
      expect(await page.getByTestId('load-more').isHidden()).toBe(true);
      await page.getByTestId('search-reset').click();
    },
  );

  it(
    'finds a failed event, retries it from the page and shows it succeeded',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      const slug = uniqueSlug();
      const id = await accept(api, key, 'article.update', { slug, title: 'Fixed by a retry' });
      expect((await finalReceipt(api, key, id)).status).toBe('failed');

      await page.getByTestId('filter-status').selectOption('failed');
      await page.getByTestId('filter-slug').fill(slug);
      await submitSearch(page);
      const row = page.locator(`[data-testid="event-row"][data-event-id="${id}"]`);
      await eventually(() => page.getByTestId('event-row').count()).toBe(1);
      await row.click();
      await eventually(() => text('detail-status')).toBe('failed');
      expect(await text('detail-error')).toContain('ARTICLE_NOT_FOUND');
      expect(await text('detail-attempts')).toContain('ARTICLE_NOT_FOUND');
      expect(await text('detail-payload')).toContain('Fixed by a retry');

      const created = await accept(api, key, 'article.create', articleData({ slug }));
      expect((await finalReceipt(api, key, created)).status).toBe('succeeded');
      await page.getByTestId('retry-event').click();
      await eventually(() => text('detail-status'), 15_000).toBe('succeeded');
      expect(await row.getAttribute('data-status')).toBe('succeeded');
      expect(await text('detail-attempts')).toMatch(/failed[\s\S]*succeeded/);
      const article = await api.deps.db.prisma.article.findUnique({ where: { slug } });
      expect(article?.title).toBe('Fixed by a retry');

      await mkdir(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      // The README's picture; regenerate it on purpose, not on every run.
      if (process.env.UPDATE_DOCS_SCREENSHOT === '1') {
        await mkdir(`${REPO_ROOT}docs`, { recursive: true });
        await copyFile(SCREENSHOT, `${REPO_ROOT}docs/dashboard.png`);
      }
    },
  );

  it(
    'retries the failed events of a search after saying how many, by error code, and a confirm',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      const slug = uniqueSlug();
      const ids = [];
      for (const excerpt of ['first', 'second'])
        ids.push(await accept(api, key, 'article.update', { slug, excerpt }));
      for (const id of ids) expect((await finalReceipt(api, key, id)).status).toBe('failed');
      // Failures are counted apart from the backlog: the last hour's, in red.
      await eventually(
        async () => Number(await text('events-failed')),
        10_000,
      ).toBeGreaterThanOrEqual(2);
      expect(await page.getByTestId('events-failed').locator('..').getAttribute('class')).toContain(
        'alert',
      );

      await page.getByTestId('search-reset').click();
      await page.getByTestId('filter-status').selectOption('failed');
      await page.getByTestId('filter-payload').fill(JSON.stringify({ slug }));
      await submitSearch(page);
      await eventually(() => page.getByTestId('event-row').count()).toBe(2);

      // Failures of their own (ARTICLE_NOT_FOUND) are left out: nothing to ask about.
      let asked = false;
      const onDialog = () => (asked = true);
      page.on('dialog', onDialog);
      await page.getByTestId('bulk-retry').click();
      await eventually(() => text('bulk-result')).toContain('Nothing to retry');
      expect(await text('bulk-result')).toContain('2 left out');
      page.off('dialog', onDialog);
      expect(asked).toBe(false);

      // Naming their code asks for them; declining the confirm retries nothing.
      await page.getByTestId('filter-error').fill('ARTICLE_NOT_FOUND');
      await submitSearch(page);
      await eventually(() => page.getByTestId('event-row').count()).toBe(2);
      let question = '';
      page.once('dialog', (dialog) => {
        question = dialog.message();
        void dialog.dismiss();
      });
      await page.getByTestId('bulk-retry').click();
      await eventually(async () => question).toContain('Retry 2 failed events');
      expect(question).toContain('ARTICLE_NOT_FOUND: 2');
      expect(question).toContain(slug);
      const untouched = await api.app.inject({
        method: 'GET',
        url: `/api/admin/events/${ids[0]}`,
        headers: bearer(admin.token),
      });
      expect(untouched.json()).toMatchObject({ status: 'failed', replays: 0 });

      await finalReceipt(api, key, await accept(api, key, 'article.create', articleData({ slug })));
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByTestId('bulk-retry').click();
      await eventually(() => text('bulk-result')).toBe('2 failed events queued again');
      for (const id of ids) expect((await finalReceipt(api, key, id)).status).toBe('succeeded');
      const article = await api.deps.db.prisma.article.findUnique({ where: { slug } });
      expect(article?.excerpt).toBe('second');
      await page.getByTestId('filter-error').fill('');
    },
  );

  it(
    'retries from a time: "Failed since" reaches the retry preview',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      const slug = uniqueSlug();
      const update = (excerpt: string) => accept(api, key, 'article.update', { slug, excerpt });
      const early = await finalReceipt(api, key, await update('early'));
      expect(early.status).toBe('failed');
      // The field takes whole seconds: the second after the early failure, then one later.
      const since = (Math.floor(Date.parse(String(early.finishedAt)) / 1000) + 1) * 1000;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, since + 50 - Date.now())));
      const late = await update('late');
      expect((await finalReceipt(api, key, late)).status).toBe('failed');

      await page.getByTestId('search-reset').click();
      await page.getByTestId('filter-slug').fill(slug);
      await page.getByTestId('filter-error').fill('ARTICLE_NOT_FOUND');
      await page.getByTestId('filter-failedSince').fill(localInput(since));
      await submitSearch(page);
      const rows = page.getByTestId('event-row');
      await eventually(() => rows.count()).toBe(1);
      expect(await rows.first().getAttribute('data-event-id')).toBe(late);

      const preview = page.waitForRequest((request) =>
        request.url().endsWith('/api/admin/events/retry/preview'),
      );
      let question = '';
      page.once('dialog', (dialog) => {
        question = dialog.message();
        void dialog.dismiss();
      });
      await page.getByTestId('bulk-retry').click();
      expect((await preview).postDataJSON()).toMatchObject({
        slug,
        error: 'ARTICLE_NOT_FOUND',
        failedSince: new Date(since).toISOString(),
      });
      await eventually(async () => question).toContain('Retry 1 failed event ');
      expect(question).toContain(`failedSince = ${new Date(since).toISOString()}`);
      expect(question).toContain('ARTICLE_NOT_FOUND: 1');
      await page.getByTestId('search-reset').click();
    },
  );

  it('opens bull-board for the operator, and logs out', { timeout: STEP_TIMEOUT_MS }, async () => {
    const board = await browser.context.newPage();
    const response = await board.goto(`${base}/dashboard/queues`);
    expect(response?.status()).toBe(200);
    expect(await board.title()).toBe('Ingest jobs');
    await board.close();

    await page.getByTestId('logout').click();
    await page.waitForURL(`${base}/dashboard/login?reason=logged-out`);
    await page.goto(`${base}/dashboard/`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/login');
    expect((await page.request.get(`${base}/dashboard/queues`)).status()).toBe(401);
    expect(browser.problems).toEqual([]);
  });
});
