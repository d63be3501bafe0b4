// An account's page in a real browser, against the real API over HTTP: opened from the
// backlog by account and from the events list, its share changed after a confirmation
// and the change's audit row shown, and its events searched from it.
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount, type RegisteredAccount } from '../support/accounts.js';
import { registerAdmin } from '../support/admin.js';
import { accept } from '../support/content.js';
import { startTestApi, type TestApi } from '../support/test-api.js';
import { launchBrowser, logInToDashboard, type TestBrowser } from './browser.js';

const STEP_TIMEOUT_MS = 60_000;

let api: TestApi;
let browser: TestBrowser;
let page: Page;
let base: string;
let admin: RegisteredAccount;
let publisher: RegisteredAccount;

beforeAll(async () => {
  // No worker runs: the publisher's events stay queued, so it is listed as waiting.
  api = await startTestApi();
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  [browser, admin, publisher] = await Promise.all([
    launchBrowser(),
    registerAdmin(api),
    registerAccount(api),
  ]);
  const { key } = await createKey(api, publisher);
  for (let i = 0; i < 3; i += 1) await accept(api, key, 'article.delete', { slug: 'gone' });
  page = browser.page;
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

const text = async (testid: string) => (await page.getByTestId(testid).textContent()) ?? '';
const eventually = <Value>(read: () => Promise<Value>, timeout = 10_000) =>
  expect.poll(read, { timeout });

describe("an account's page", () => {
  it(
    'opens from a handle, changes the share after asking, and shows who changed it',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      await logInToDashboard(page, base, admin);

      const row = page.locator(`[data-account="${publisher.id}"]`);
      await row.getByTestId('account-open').click({ timeout: 15_000 });
      const accountPage = page.getByTestId('account-page');
      await eventually(() => text('account-handle')).toBe(publisher.handle);
      expect(await accountPage.getAttribute('data-account-id')).toBe(publisher.id);
      expect(await text('account-page-queued')).toBe('3');
      expect(await text('account-share')).toBe('weight 1');
      // Its own history: the three events it sent, apart from every other account's.
      await eventually(async () => accountPage.getByTestId('history-totals').textContent()).toMatch(
        /^3 accepted · /,
      );
      expect(await page.getByTestId('share-changes-empty').count()).toBe(1);

      // Declined, nothing changes; accepted, the share and its audit row show.
      await page.getByTestId('share-weight').fill('7');
      await page.getByTestId('share-max-in-flight').fill('3');
      page.once('dialog', (dialog) => void dialog.dismiss());
      await page.getByTestId('share-save').click();
      await page.waitForTimeout(500);
      expect(await text('account-share')).toBe('weight 1');
      let question = '';
      page.once('dialog', (dialog) => {
        question = dialog.message();
        void dialog.accept();
      });
      await page.getByTestId('share-save').click();
      await eventually(() => text('account-share')).toBe('weight 7 · at most 3 at once');
      expect(question).toContain(`Change the share of ${publisher.handle}?`);
      const audit = page.getByTestId('share-changes-row');
      expect(await audit.count()).toBe(1);
      const cells = await audit.first().locator('td').allTextContents();
      expect(cells.slice(1)).toEqual([admin.email, 'weight 1', 'weight 7 · at most 3 at once']);

      // "Its failures" sets the events search to this account's failed events.
      await page.getByTestId('account-failures').click();
      expect(await page.getByTestId('filter-accountId').inputValue()).toBe(publisher.id);
      expect(await page.getByTestId('filter-status').inputValue()).toBe('failed');
      // "Its events": this account's events, of any status.
      await page.getByTestId('account-events').click();
      expect(await page.getByTestId('filter-status').inputValue()).toBe('');
      const rows = page.getByTestId('event-row');
      await eventually(() => rows.count()).toBe(3);

      // From an event's account cell: the account opens, not the event.
      await page.getByTestId('account-page-close').click();
      expect(await accountPage.isHidden()).toBe(true);
      await rows.first().getByTestId('account-open').click();
      await eventually(() => accountPage.isVisible()).toBe(true);
      expect(await page.getByTestId('event-detail').isHidden()).toBe(true);
      expect(browser.problems).toEqual([]);
    },
  );
});
