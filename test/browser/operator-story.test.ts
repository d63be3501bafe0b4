// An operator's story on the dashboard, in a real browser against the real API over HTTP
// and a real worker process: pause (after a confirmation) while a noisy account piles up
// a backlog, resume, and after it drained find that account by its handle, see on its
// page that the backlog grew and drained, filter its failures by code, and see what a
// bulk retry would take before it runs, failures that a retry cannot fix left out.
import { copyFile, mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { REPO_ROOT } from '@ingest/test-harness';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, registerAccount, type RegisteredAccount } from '../support/accounts.js';
import { registerAdmin } from '../support/admin.js';
import { accept, articleData, finalReceipt, uniqueSlug } from '../support/content.js';
import { startTestApi, type TestApi } from '../support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';
import { launchBrowser, logInToDashboard, submitSearch, type TestBrowser } from './browser.js';

const ARTIFACTS = `${REPO_ROOT}test/artifacts`;
const STORY_TIMEOUT_MS = 120_000;
const BACKLOG = 40;
const MISSING = 3;

let api: TestApi;
let worker: WorkerProcess;
let browser: TestBrowser;
let page: Page;
let base: string;
let admin: RegisteredAccount;
let noisy: RegisteredAccount;
let key: string;

beforeAll(async () => {
  api = await startTestApi();
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  [worker, browser, admin, noisy] = await Promise.all([
    // The reconciler would re-queue other files' events (the test database is shared).
    startWorkerProcess(api.tag, { RECONCILE_AFTER_MS: '600000' }),
    launchBrowser(),
    registerAdmin(api),
    registerAccount(api),
  ]);
  ({ key } = await createKey(api, noisy));
  page = browser.page;
});
afterAll(async () => {
  await api?.app.inject({
    method: 'POST',
    url: '/api/admin/queue/resume',
    headers: bearer(admin?.token ?? ''),
  });
  await browser?.close();
  await worker?.stop();
  await api?.close();
});

const text = async (testid: string) => (await page.getByTestId(testid).textContent()) ?? '';
const eventually = <Value>(read: () => Promise<Value>, timeout = 15_000) =>
  expect.poll(read, { timeout });

/** Saves a view for docs/ when UPDATE_DOCS_SCREENSHOT=1; in test/artifacts always. */
async function screenshot(name: string): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true });
  const path = `${ARTIFACTS}/${name}`;
  await page.screenshot({ path, fullPage: true });
  if (process.env.UPDATE_DOCS_SCREENSHOT === '1') await copyFile(path, `${REPO_ROOT}docs/${name}`);
}

describe('an operator on the dashboard', () => {
  it(
    'sees a backlog after the fact, finds its account by handle, its failures by code, and what a retry would take',
    { timeout: STORY_TIMEOUT_MS },
    async () => {
      await logInToDashboard(page, base, admin);
      await eventually(() => text('queue-state')).toBe('running');

      // Pause asks first.
      let question = '';
      page.once('dialog', (dialog) => {
        question = dialog.message();
        void dialog.accept();
      });
      await page.getByTestId('pause-queue').click();
      await eventually(() => text('queue-state')).toBe('paused');
      expect(question).toContain('Every worker stops taking jobs');

      // The noisy account piles up a backlog: creates, one slug twice, updates of nothing.
      const taken = uniqueSlug('taken');
      const ids = [
        ...(await Promise.all(
          Array.from({ length: BACKLOG - MISSING - 2 }, () =>
            accept(api, key, 'article.create', articleData({ slug: uniqueSlug() })),
          ),
        )),
        await accept(api, key, 'article.create', articleData({ slug: taken })),
        await accept(api, key, 'article.create', articleData({ slug: taken })),
        ...(await Promise.all(
          Array.from({ length: MISSING }, () =>
            accept(api, key, 'article.update', { slug: uniqueSlug('missing'), title: 'Nothing' }),
          ),
        )),
      ];
      const mine = page.locator(`[data-account="${noisy.id}"]`);
      await eventually(() => mine.getByTestId('account-queued').textContent()).toBe(
        String(BACKLOG),
      );
      // The workers sample the backlog every second: seen once, it is in the history.
      await eventually(async () => {
        const { points } = (
          await api.app.inject({
            method: 'GET',
            url: `/api/admin/history?account=${noisy.handle}`,
            headers: bearer(admin.token),
          })
        ).json<{ points: Array<{ depth: number }> }>();
        return Math.max(...points.map((point) => point.depth));
      }).toBe(BACKLOG);

      await page.getByTestId('resume-queue').click();
      await eventually(() => text('queue-state')).toBe('running');
      const outcomes = await Promise.all(
        ids.map(async (id) => (await finalReceipt(api, key, id)).status),
      );
      expect(outcomes.filter((status) => status === 'failed')).toHaveLength(MISSING + 1);
      await eventually(() => page.locator(`[data-account="${noisy.id}"]`).count()).toBe(0);

      // After the fact: find the account by its handle, open its page.
      await page.getByTestId('filter-accountId').fill(noisy.handle.toUpperCase());
      await submitSearch(page);
      await eventually(() => text('search-summary')).toMatch(
        new RegExp(`^${BACKLOG} events match`),
      );
      const firstRow = page.getByTestId('event-row').first();
      expect(await firstRow.getByTestId('account-open').textContent()).toBe(noisy.handle);
      await firstRow.getByTestId('account-open').click();
      const accountPage = page.getByTestId('account-page');
      await eventually(() => text('account-handle')).toBe(noisy.handle);
      expect(await text('account-page-queued')).toBe('0');
      // Its history shows the backlog that grew and drained.
      await eventually(() => accountPage.getByTestId('history-totals').textContent()).toMatch(
        new RegExp(
          `^${BACKLOG} accepted · ${BACKLOG - MISSING - 1} applied · ${MISSING + 1} failed .*backlog peak ${BACKLOG}$`,
        ),
      );
      // On the chart itself: the cursor's readout of the backlog, over every minute drawn:
      // none an hour ago, the peak in the minute it grew and drained (queued is 0 above).
      const backlogChart = accountPage.getByTestId('history-backlog');
      await backlogChart.scrollIntoViewIfNeeded();
      const box = await backlogChart.locator('.u-over').boundingBox();
      if (box === null) throw new Error('the backlog chart is not drawn');
      const depthReadout = backlogChart.locator('.u-legend .u-series').nth(1).locator('.u-value');
      const readouts: number[] = [];
      for (let x = box.x + 1; x < box.x + box.width; x += box.width / 180) {
        await page.mouse.move(x, box.y + box.height / 2);
        readouts.push(Number(await depthReadout.textContent()) || 0);
      }
      expect(Math.max(...readouts)).toBe(BACKLOG);
      expect(readouts[0]).toBe(0);
      await page.mouse.move(0, 0);
      await screenshot('dashboard-account.png');

      // Its failures, then those of one code.
      await page.getByTestId('account-failures').click();
      await eventually(() => text('search-summary')).toMatch(
        new RegExp(`^${MISSING + 1} events match`),
      );
      await page.getByTestId('filter-error').fill('ARTICLE_NOT_FOUND');
      await submitSearch(page);
      await eventually(() => text('search-summary')).toMatch(
        new RegExp(`^${MISSING} events match`),
      );
      expect(await page.getByTestId('event-row').count()).toBe(MISSING);
      await screenshot('dashboard-failures.png');

      // A bulk retry says what it would take before it runs. The code named, its events.
      question = '';
      page.once('dialog', (dialog) => {
        question = dialog.message();
        void dialog.dismiss();
      });
      await page.getByTestId('bulk-retry').click();
      await eventually(async () => question).toContain(`Retry ${MISSING} failed events`);
      expect(question).toContain(`ARTICLE_NOT_FOUND: ${MISSING}`);
      // Without it, none: a retry would meet the same failures again.
      await page.getByTestId('filter-error').fill('');
      await submitSearch(page);
      await eventually(() => text('search-summary')).toMatch(
        new RegExp(`^${MISSING + 1} events match`),
      );
      await page.getByTestId('bulk-retry').click();
      await eventually(() => text('bulk-result')).toContain(`(${MISSING + 1} left out)`);
      const stillFailed = await Promise.all(
        ids.map(async (id) => (await finalReceipt(api, key, id)).status),
      );
      expect(stillFailed.filter((status) => status === 'failed')).toHaveLength(MISSING + 1);
    },
  );
});
