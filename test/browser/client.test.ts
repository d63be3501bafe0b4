// The client library in a real browser: bundled for the browser from its source, as a web
// app's bundler would, it publishes through the page's own fetch (with a worker process
// applying the event) and checks a webhook signature with the browser's crypto alone.
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { REPO_ROOT } from '@ingest/test-harness';
import { build } from 'tsup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount } from '../support/accounts.js';
import { startTestApi, type TestApi } from '../support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';
import { launchBrowser, type TestBrowser } from './browser.js';

let api: TestApi;
let worker: WorkerProcess;
let browser: TestBrowser;
let base: string;
let bundle: string;
let outDir: string;

beforeAll(async () => {
  api = await startTestApi();
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  outDir = await mkdtemp(join(tmpdir(), 'ingest-client-browser-'));
  // Everything in one script, dependencies included, for the browser: nothing of Node's
  // may be left in it, or it would not load.
  await build({
    entry: { client: join(REPO_ROOT, 'packages/client/src/index.ts') },
    outDir,
    format: 'iife',
    globalName: 'IngestClientLibrary',
    platform: 'browser',
    target: 'es2022',
    noExternal: [/.*/],
    dts: false,
    silent: true,
    config: false,
  });
  bundle = await readFile(join(outDir, 'client.global.js'), 'utf8');
  [worker, browser] = await Promise.all([
    startWorkerProcess(api.tag, { RECONCILE_AFTER_MS: '600000' }),
    launchBrowser(),
  ]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  await api?.close();
  if (outDir !== undefined) await rm(outDir, { recursive: true, force: true });
});

describe('the client library in a browser', () => {
  it('publishes exactly once, waits for the outcome and verifies a webhook', async () => {
    const account = await registerAccount(api);
    const key = await createKey(api, account, { name: 'browser', scopes: ['content:create'] });
    // Same origin as the API, as a page the service served would be: no CORS involved.
    await browser.page.goto(`${base}/health/live`);
    const outcome = await browser.page.evaluate(
      `(async () => {
        ${bundle}
        const { IngestClient, signatureHeaders, verifyWebhook } = IngestClientLibrary;
        const client = new IngestClient({ baseUrl: location.origin, apiKey: ${JSON.stringify(key.key)} });
        const published = await client.publish(
          'article.create',
          { title: 'From a browser', body: ['Sent by fetch in a page.'] },
          { wait: 10 },
        );
        const again = await client.publish(
          'article.create',
          { title: 'From a browser', body: ['Sent by fetch in a page.'] },
          { idempotencyKey: published.idempotencyKey },
        );
        const secret = 'whsec_' + btoa('a secret of at least 24 bytes!');
        const body = JSON.stringify({ type: 'ping', timestamp: new Date().toISOString(), data: {} });
        const message = verifyWebhook(secret, signatureHeaders(secret, 'msg_1', body), body);
        let refused = false;
        try { verifyWebhook(secret, signatureHeaders(secret, 'msg_1', body), body + ' '); }
        catch (error) { refused = error.name === 'WebhookVerificationFailed'; }
        return {
          status: published.receipt.status,
          id: published.receipt.id,
          againId: again.receipt.id,
          replayed: again.replayed,
          messageType: message.type,
          refused,
        };
      })()`,
    );
    expect(outcome).toMatchObject({
      status: 'succeeded',
      replayed: true,
      messageType: 'ping',
      refused: true,
    });
    const { id, againId } = outcome as { id: string; againId: string };
    expect(againId).toBe(id);
    expect(browser.problems).toEqual([]);
  }, 60_000);
});
