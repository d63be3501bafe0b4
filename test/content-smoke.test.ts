import { afterAll, beforeAll, expect, it } from 'vitest';
import { createKey, registerAccount } from './support/accounts.js';
import { accept, articleData, finalReceipt } from './support/content.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

let api: TestApi;
let worker: WorkerProcess;
beforeAll(async () => {
  api = await startTestApi();
  worker = await startWorkerProcess(api.tag);
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
});

it('applies an article.create', async () => {
  const account = await registerAccount(api);
  const { key } = await createKey(api, account);
  const id = await accept(api, key, 'article.create', articleData());
  const receipt = await finalReceipt(api, key, id);
  console.log(receipt, worker.lines.slice(-5));
  expect(receipt.status).toBe('succeeded');
});
