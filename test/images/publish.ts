// What the smoke test does through the containers' API, as a publisher would (README's
// quick start): register, create a key, publish an article, poll its receipt until a
// worker has applied it, read the article back.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createApiKey,
  fetchClient,
  newAccountFields,
  registerAccount,
  type ApiClient,
} from '@ingest/test-harness';

interface Receipt {
  status: string;
  result: { slug?: string } | null;
  error: unknown;
}

async function expectStatus(client: ApiClient, path: string, key: string, status: number) {
  const response = await client({ method: 'GET', path, headers: { 'x-api-key': key } });
  if (response.status !== status) {
    throw new Error(`GET ${path}: ${response.status} ${response.text.slice(0, 300)}`);
  }
  return JSON.parse(response.text) as unknown;
}

/** Publishes an article.create and waits for the workers to apply it; returns its slug. */
export async function publishAndRead(apiUrl: string, timeoutMs = 30_000): Promise<string> {
  const client = fetchClient(apiUrl);
  const account = await registerAccount(client, newAccountFields('images.smoke', 'smoke'));
  const { key } = await createApiKey(client, account.token, {
    name: 'smoke',
    scopes: ['content:create', 'content:read'],
  });
  const title = `Container smoke ${randomBytes(4).toString('hex')}`;
  const published = await client({
    method: 'POST',
    path: '/api/webhooks/content',
    headers: { 'x-api-key': key },
    body: { event: 'article.create', data: { title, body: ['Built, run and applied.'] } },
  });
  if (published.status !== 202) {
    throw new Error(`publish: ${published.status} ${published.text.slice(0, 300)}`);
  }
  const { id } = JSON.parse(published.text) as { id: string };

  const deadline = Date.now() + timeoutMs;
  let receipt: Receipt;
  for (;;) {
    receipt = (await expectStatus(client, `/api/webhooks/content/${id}`, key, 200)) as Receipt;
    if (receipt.status === 'succeeded') break;
    if (receipt.status === 'failed' || receipt.status === 'rejected' || Date.now() > deadline) {
      throw new Error(`receipt ${id}: ${receipt.status} ${JSON.stringify(receipt.error)}`);
    }
    await sleep(200);
  }
  const slug = receipt.result?.slug;
  if (slug === undefined) throw new Error(`receipt ${id} succeeded without a slug`);
  const article = (await expectStatus(client, `/api/articles/${slug}`, key, 200)) as {
    title?: string;
  };
  if (article.title !== title)
    throw new Error(`article ${slug} reads back ${JSON.stringify(article)}`);
  return slug;
}
