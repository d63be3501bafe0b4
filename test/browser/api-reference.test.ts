// The API reference at /docs, as a self-hosting operator's browser loads it: every
// request stays on the API's own origin (no fonts, scripts, telemetry or registry from
// elsewhere), and none of Scalar's cloud features is offered.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/test-api.js';
import { launchBrowser, type TestBrowser } from './browser.js';

let api: TestApi;
let browser: TestBrowser;
let base: string;

beforeAll(async () => {
  api = await startTestApi();
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

describe('the API reference at /docs', () => {
  it('loads from this origin alone and offers no cloud feature', async () => {
    const elsewhere: string[] = [];
    browser.context.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(base) && !/^(data|blob|about):/.test(url)) elsewhere.push(url);
    });
    const { page } = browser;
    await page.goto(`${base}/docs`);
    // The reference is rendered: the document's title and its operations are on the page.
    await page.getByText('Ingest: content ingestion API').first().waitFor({ timeout: 30_000 });
    await page.waitForLoadState('networkidle');
    const text = await page.locator('body').innerText();
    expect(text).toContain('Register a publisher or bot account');
    expect(text).not.toMatch(/Ask AI|MCP|Developer Tools|Deploy/);
    expect(elsewhere).toEqual([]);
    expect(browser.problems).toEqual([]);
  }, 60_000);
});
