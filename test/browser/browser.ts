import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  /** Uncaught page errors and Content-Security-Policy refusals seen so far. */
  problems: string[];
  close(): Promise<void>;
}

/** The machine's Chromium, headless, on a fresh profile that is deleted on close. */
export async function launchBrowser(): Promise<TestBrowser> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'ingest-browser-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1440, height: 960 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
      problems.push(`CSP: ${message.text()}`);
  });
  return {
    context,
    page,
    problems,
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Logs `account` in on the dashboard's login form and waits for the dashboard. */
export async function logInToDashboard(
  page: Page,
  base: string,
  account: { email: string; password: string },
): Promise<void> {
  await page.goto(`${base}/dashboard/`);
  await page.getByTestId('login-email').fill(account.email);
  await page.getByTestId('login-password').fill(account.password);
  await page.getByTestId('login-submit').click();
  await page.waitForURL(`${base}/dashboard/`);
}

/**
 * Submits the event search and waits for its answer: rows counted before that may be the
 * last search's.
 */
export async function submitSearch(page: Page): Promise<void> {
  await page.getByTestId('search-submit').click();
  await page.locator('[data-testid="events-table"][aria-busy="false"]').waitFor();
}
