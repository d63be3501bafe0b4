// The dashboard's endpoints panel in a real browser, against the real API over HTTP: a
// paused endpoint shows its state apart from a failing one, with why; a filter shows as
// compact JSON cut short (all of it on hover), limits as read; a plain endpoint shows none;
// the owner's handle opens the account's page.
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, registerAccount, type RegisteredAccount } from '../support/accounts.js';
import { registerAdmin } from '../support/admin.js';
import { startTestApi, type TestApi } from '../support/test-api.js';
import { launchBrowser, logInToDashboard, type TestBrowser } from './browser.js';

let api: TestApi;
let browser: TestBrowser;
let page: Page;
let base: string;
let admin: RegisteredAccount;
let publisher: RegisteredAccount;

beforeAll(async () => {
  api = await startTestApi();
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  [browser, admin, publisher] = await Promise.all([
    launchBrowser(),
    registerAdmin(api),
    registerAccount(api),
  ]);
  page = browser.page;
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

async function asOwner<Body>(method: 'POST', url: string, payload?: object): Promise<Body> {
  const answer = await api.app.inject({ method, url, headers: bearer(publisher.token), payload });
  expect(answer.statusCode, answer.body).toBeLessThan(300);
  return answer.json<Body>();
}

const eventually = <Value>(read: () => Promise<Value>) => expect.poll(read, { timeout: 15_000 });

describe('the endpoints panel', () => {
  it('shows a paused endpoint with its reason, its filter cut short and its limits', async () => {
    const filter = {
      and: [
        { field: 'data.article.category', in: ['News', 'Politics', 'Economy'] },
        { not: { field: 'data.article.slug', prefix: 'draft-' } },
      ],
    };
    const limited = await asOwner<{ id: string }>('POST', '/api/webhooks/endpoints', {
      url: 'https://hooks.example.com/panel-limited',
      events: ['article.created', 'article.updated'],
      filter,
      rate: { perSecond: 20, inFlight: 4 },
    });
    const paused = await asOwner<{ pausedReason: string }>(
      'POST',
      `/api/webhooks/endpoints/${limited.id}/pause`,
    );
    const plain = await asOwner<{ id: string }>('POST', '/api/webhooks/endpoints', {
      url: 'https://hooks.example.com/panel-plain',
    });

    await logInToDashboard(page, base, admin);
    const row = page.locator(`[data-testid="endpoint-row"][data-endpoint="${limited.id}"]`);
    await eventually(() => row.getAttribute('data-state')).toBe('paused');
    const state = row.getByTestId('endpoint-state');
    expect(await state.textContent()).toMatch(/^paused since /);
    expect(await row.getByTestId('endpoint-paused-reason').textContent()).toBe(paused.pausedReason);
    // Not the colour of a failing endpoint: paused is held on purpose.
    const badge = `[data-endpoint="${limited.id}"] [data-testid="endpoint-state"] .badge`;
    const background = await page.evaluate(
      `getComputedStyle(document.querySelector('${badge}')).backgroundColor`,
    );
    expect(background).toMatch(/^rgb\(/);
    expect(background).not.toBe('rgb(255, 244, 212)');

    const shown = row.getByTestId('endpoint-filter');
    const text = (await shown.textContent()) ?? '';
    expect(text.length).toBeLessThanOrEqual(60);
    expect(text).toMatch(/^\{"and":\[\{"field":"data\.article\.category".*…$/);
    expect(JSON.parse((await shown.getAttribute('title')) ?? '')).toEqual(filter);
    expect(await row.getByTestId('endpoint-limits').textContent()).toBe('20/s · 4 at once');

    const plainRow = page.locator(`[data-testid="endpoint-row"][data-endpoint="${plain.id}"]`);
    expect(await plainRow.getAttribute('data-state')).toBe('enabled');
    expect(await plainRow.getByTestId('endpoint-filter').textContent()).toBe('all');
    expect(await plainRow.getByTestId('endpoint-limits').textContent()).toBe('—');
    expect(await plainRow.getByTestId('endpoint-paused-reason').count()).toBe(0);

    // The account's handle opens its page, as in the events list.
    const owner = row.getByTestId('account-open');
    expect(await owner.textContent()).toBe(publisher.handle);
    expect(await owner.getAttribute('title')).toBe(publisher.id);
    await owner.click();
    await eventually(async () => page.getByTestId('account-handle').textContent()).toBe(
      publisher.handle,
    );
    expect(browser.problems).toEqual([]);
  }, 60_000);
});
