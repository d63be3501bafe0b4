// highlight.update and highlight.delete through the whole pipeline (API, Redis, a real
// worker process, PostgreSQL, an endpoint): a highlight addressed by its id, version
// checks as articles have them, its own lines, receipts, batches and outgoing messages.
import { OutgoingMessageSchema } from '@ingest/events';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, registerAccount, type RegisteredAccount } from './support/accounts.js';
import {
  accept,
  acceptBatch,
  articleData,
  finalReceipt,
  sendEvent,
  uniqueSlug,
} from './support/content.js';
import { expectProblem } from './support/problems.js';
import { startReceivers, type Receivers } from './support/receivers.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
  WEBHOOK_RETRY_SCHEDULE: '0,200ms,200ms',
};

let receivers: Receivers;
let api: TestApi;
let worker: WorkerProcess;
let account: RegisteredAccount;
let key: string;
beforeAll(async () => {
  receivers = await startReceivers();
  api = await startTestApi(WEBHOOK_ENV);
  worker = await startWorkerProcess(api.tag, WEBHOOK_ENV);
  account = await registerAccount(api);
  ({ key } = await createKey(api, account));
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await receivers?.close();
});

interface Receipt {
  status: string;
  result: { type: string; id: string; version?: number; deleted?: boolean } | null;
  error: { code: string; currentVersion?: number } | null;
}

const outcomeOf = async (event: string, data: object, as = key) =>
  (await finalReceipt(api, as, await accept(api, as, event, data))) as unknown as Receipt;

const VIDEO = 'https://video.example.com/clip.mp4';

/** A new highlight of `key`'s account, linked to `articleSlug` if given: its id. */
async function createdHighlight(fields: object = {}, as = key): Promise<string> {
  const receipt = await outcomeOf(
    'highlight.create',
    { title: 'Clip', videoUrl: VIDEO, ...fields },
    as,
  );
  expect(receipt).toMatchObject({ status: 'succeeded', result: { type: 'highlight', version: 1 } });
  return receipt.result!.id;
}

async function createdArticle(): Promise<{ slug: string; title: string }> {
  const slug = uniqueSlug('linked');
  const title = `Article ${slug}`;
  expect(await outcomeOf('article.create', articleData({ slug, title }))).toMatchObject({
    status: 'succeeded',
  });
  return { slug, title };
}

const stored = (id: string) =>
  api.deps.db.prisma.highlight.findUnique({
    where: { id },
    include: { article: { select: { slug: true } } },
  });

interface ReadHighlight {
  id: string;
  title: string;
  version: number;
  description: string | null;
  tags: string[];
  article: { slug: string } | null;
}

async function read(id: string): Promise<ReadHighlight | undefined> {
  const response = await api.app.inject({ method: 'GET', url: '/api/highlights?limit=100' });
  expect(response.statusCode).toBe(200);
  return response.json<{ items: ReadHighlight[] }>().items.find((item) => item.id === id);
}

describe('highlight.update', () => {
  it('changes the fields sent, clears those sent null, and the reads show the new version', async () => {
    const article = await createdArticle();
    const id = await createdHighlight({ description: 'old', tags: ['a'], durationSeconds: 9 });
    const receipt = await outcomeOf('highlight.update', {
      id,
      ifVersion: 1,
      title: 'Clip, edited',
      description: null,
      tags: ['b', 'c'],
      articleSlug: article.slug,
    });
    expect(receipt).toMatchObject({
      status: 'succeeded',
      result: { type: 'highlight', id, version: 2 },
    });
    expect(await read(id)).toMatchObject({
      title: 'Clip, edited',
      description: null,
      tags: ['b', 'c'],
      version: 2,
      article: { slug: article.slug },
    });
    expect(await stored(id)).toMatchObject({ durationSeconds: 9, videoUrl: VIDEO });

    await outcomeOf('highlight.update', { id, articleSlug: null });
    expect(await read(id)).toMatchObject({ article: null, version: 3 });
  });

  it('fails at another version with VERSION_CONFLICT and the current version, changing nothing', async () => {
    const id = await createdHighlight();
    await outcomeOf('highlight.update', { id, title: 'v2' });
    const receipt = await outcomeOf('highlight.update', { id, ifVersion: 1, title: 'lost' });
    expect(receipt).toMatchObject({
      status: 'failed',
      error: { code: 'VERSION_CONFLICT', currentVersion: 2 },
    });
    expect(await stored(id)).toMatchObject({ title: 'v2', version: 2 });
  });

  it("answers HIGHLIGHT_NOT_FOUND for an unknown id or another account's highlight, and ARTICLE_NOT_FOUND for a missing article", async () => {
    const other = await createKey(api, await registerAccount(api));
    const theirs = await createdHighlight({}, other.key);
    for (const id of [theirs, '0190a000-0000-7000-8000-00000000dead']) {
      expect(await outcomeOf('highlight.update', { id, title: 'mine now' })).toMatchObject({
        status: 'failed',
        error: { code: 'HIGHLIGHT_NOT_FOUND' },
      });
    }
    expect(await stored(theirs)).toMatchObject({ title: 'Clip', version: 1 });
    const id = await createdHighlight();
    expect(
      await outcomeOf('highlight.update', { id, articleSlug: uniqueSlug('missing') }),
    ).toMatchObject({ status: 'failed', error: { code: 'ARTICLE_NOT_FOUND' } });
    expect(await stored(id)).toMatchObject({ version: 1, articleId: null });
  });

  it('applies a burst of updates with ifVersion 1..N in order, ending at version N+1', async () => {
    const id = await createdHighlight();
    const ids: string[] = [];
    for (let version = 1; version <= 20; version += 1) {
      ids.push(
        await accept(api, key, 'highlight.update', {
          id,
          ifVersion: version,
          title: `v${version + 1}`,
        }),
      );
    }
    const receipts = await Promise.all(ids.map((eventId) => finalReceipt(api, key, eventId)));
    expect(receipts.map((receipt) => receipt.status)).toEqual(ids.map(() => 'succeeded'));
    expect(await stored(id)).toMatchObject({ title: 'v21', version: 21 });
  });
});

describe('highlight.delete', () => {
  it('deletes at its own version only; then the highlight is gone from the reads', async () => {
    const id = await createdHighlight();
    await outcomeOf('highlight.update', { id, title: 'v2' });
    expect(await outcomeOf('highlight.delete', { id, ifVersion: 1 })).toMatchObject({
      status: 'failed',
      error: { code: 'VERSION_CONFLICT', currentVersion: 2 },
    });
    expect(await stored(id)).not.toBeNull();
    expect(await outcomeOf('highlight.delete', { id, ifVersion: 2 })).toMatchObject({
      status: 'succeeded',
      result: { type: 'highlight', id, deleted: true, version: 3 },
    });
    expect(await stored(id)).toBeNull();
    expect(await read(id)).toBeUndefined();
    expect(await outcomeOf('highlight.delete', { id })).toMatchObject({
      status: 'failed',
      error: { code: 'HIGHLIGHT_NOT_FOUND' },
    });
  });

  it('applies a batch of changes of one highlight in the order sent', async () => {
    const id = await createdHighlight();
    const ids = await acceptBatch(api, key, [
      { event: 'highlight.update', data: { id, ifVersion: 1, title: 'v2' } },
      { event: 'highlight.update', data: { id, ifVersion: 2, title: 'v3' } },
      { event: 'highlight.delete', data: { id, ifVersion: 3 } },
      { event: 'highlight.update', data: { id, title: 'too late' } },
    ]);
    const receipts = await Promise.all(ids.map((eventId) => finalReceipt(api, key, eventId)));
    expect(receipts.map((receipt) => receipt.status)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
      'failed',
    ]);
    expect(await stored(id)).toBeNull();
  });
});

describe('scopes and messages', () => {
  it('lets highlight:update and highlight:delete keys publish their own event alone', async () => {
    const id = await createdHighlight();
    const updater = await createKey(api, account, {
      name: 'updater',
      scopes: ['highlight:update'],
    });
    const deleter = await createKey(api, account, {
      name: 'deleter',
      scopes: ['highlight:delete'],
    });
    expectProblem(
      await sendEvent(api, updater.key, 'highlight.delete', { id }),
      403,
      'INSUFFICIENT_SCOPE',
    );
    expectProblem(
      await sendEvent(api, deleter.key, 'highlight.update', { id, title: 'x' }),
      403,
      'INSUFFICIENT_SCOPE',
    );
    // Their events are read with the account's key: these two may not read receipts.
    const byUpdater = await accept(api, updater.key, 'highlight.update', { id, title: 'updated' });
    expect(await finalReceipt(api, key, byUpdater)).toMatchObject({ status: 'succeeded' });
    const byDeleter = await accept(api, deleter.key, 'highlight.delete', { id });
    expect(await finalReceipt(api, key, byDeleter)).toMatchObject({ status: 'succeeded' });
  });

  it('tells a subscriber of each change, with the highlight as it left it and its version', async () => {
    const publisher = await registerAccount(api);
    const { key: own } = await createKey(api, publisher);
    const path = `/highlights-${uniqueSlug()}`;
    receivers.script(path, [{ status: 200 }]);
    const created = await api.app.inject({
      method: 'POST',
      url: '/api/webhooks/endpoints',
      headers: bearer(publisher.token),
      payload: {
        url: `${receivers.base}${path}`,
        events: ['highlight.updated', 'highlight.deleted'],
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { secret } = created.json<{ secret: string }>();
    const id = await createdHighlight({}, own);
    await outcomeOf('highlight.update', { id, title: 'Told' }, own);
    await outcomeOf('highlight.delete', { id }, own);

    await expect
      .poll(() => receivers.receivedAt(path).length, { timeout: 20_000, interval: 100 })
      .toBe(2);
    const webhook = new Webhook(secret);
    const messages = receivers
      .receivedAt(path)
      .map(({ body, headers }) =>
        OutgoingMessageSchema.parse(webhook.verify(body, headers as Record<string, string>)),
      )
      .sort((a, b) => a.type.localeCompare(b.type));
    expect(messages.map((message) => [message.type, message.data])).toEqual([
      [
        'highlight.deleted',
        expect.objectContaining({
          version: 3,
          highlight: expect.objectContaining({ id, title: 'Told', version: 2 }),
        }),
      ],
      [
        'highlight.updated',
        expect.objectContaining({
          version: 2,
          highlight: expect.objectContaining({ id, title: 'Told', version: 2 }),
        }),
      ],
    ]);
  });
});
