// Outgoing webhooks about content: the changes a real worker process applies, told to
// real HTTP receivers on loopback, each message verified with the standardwebhooks
// package's Webhook.verify and compared with what the public reads show.
import { OutgoingMessageSchema, type OutgoingMessage } from '@ingest/events';
import { loadWorkerConfig } from '@ingest/config';
import { createLogger } from '@ingest/logger';
import { createDeliveryQueue } from '@ingest/queue';
import { reconcileDeliveries } from '@ingest/worker/deliveries/reconcile-deliveries';
import { Webhook } from 'standardwebhooks';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { accept, articleData, finalReceipt, uniqueSlug } from './support/content.js';
import { startReceivers, type Receivers } from './support/receivers.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { testEnv } from './support/test-env.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
  WEBHOOK_RETRY_SCHEDULE: '0,200ms,200ms',
};

let receivers: Receivers;
let api: TestApi;
let worker: WorkerProcess;
beforeAll(async () => {
  receivers = await startReceivers();
  api = await startTestApi(WEBHOOK_ENV);
  worker = await startWorkerProcess(api.tag, WEBHOOK_ENV);
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await receivers?.close();
});

interface Publisher {
  account: RegisteredAccount;
  key: string;
}

async function publisher(): Promise<Publisher> {
  const account = await registerAccount(api);
  return { account, key: (await createKey(api, account)).key };
}

async function endpointFor(account: RegisteredAccount, path: string, events?: string[]) {
  receivers.script(path, [{ status: 200 }]);
  const response = await api.app.inject({
    method: 'POST',
    url: '/api/webhooks/endpoints',
    headers: bearer(account.token),
    payload: { url: `${receivers.base}${path}`, ...(events === undefined ? {} : { events }) },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string; secret: string }>();
}

/** Publishes an event and waits until it has been applied (or has failed). */
async function applied({ key }: Publisher, event: string, data: object) {
  const id = await accept(api, key, event, data);
  return { id, receipt: await finalReceipt(api, key, id) };
}

/** The messages `path` has received once there are `count`, each verified with `secret`. */
async function messagesAt(path: string, secret: string, count: number): Promise<OutgoingMessage[]> {
  await expect
    .poll(() => receivers.receivedAt(path).length, { timeout: 20_000, interval: 100 })
    .toBeGreaterThanOrEqual(count);
  const webhook = new Webhook(secret);
  return receivers
    .receivedAt(path)
    .map(({ body, headers }) =>
      OutgoingMessageSchema.parse(webhook.verify(body, headers as Record<string, string>)),
    );
}

const read = async (url: string) => {
  const response = await api.app.inject({ method: 'GET', url });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
};

const ofType = <Type extends OutgoingMessage['type']>(messages: OutgoingMessage[], type: Type) =>
  messages.filter((m): m is Extract<OutgoingMessage, { type: Type }> => m.type === type);

describe('messages about content', () => {
  it('tell a subscriber of every kind of change, as the public reads show it, signed', async () => {
    const publishing = await publisher();
    const path = `/all-${uniqueSlug()}`;
    const { secret } = await endpointFor(publishing.account, path);
    const slug = uniqueSlug('told');

    const created = await applied(publishing, 'article.create', articleData({ slug }));
    const afterCreate = await read(`/api/articles/${slug}`);
    const highlight = await applied(publishing, 'highlight.create', {
      title: 'Goal of the week',
      videoUrl: 'https://video.example.com/goal.mp4',
      articleSlug: slug,
      tags: ['goals'],
    });
    const highlights = await read('/api/highlights?limit=100');
    const updated = await applied(publishing, 'article.update', {
      slug,
      title: 'Hello again',
      category: 'Sport',
    });
    const afterUpdate = await read(`/api/articles/${slug}`);
    const deleted = await applied(publishing, 'article.delete', { slug });
    for (const { receipt } of [created, highlight, updated, deleted]) {
      expect(receipt.status).toBe('succeeded');
    }

    const messages = await messagesAt(path, secret, 4);
    expect(messages).toHaveLength(4);
    expect(ofType(messages, 'article.created')).toEqual([
      {
        type: 'article.created',
        timestamp: afterCreate.createdAt,
        data: { article: afterCreate, version: 1, eventId: created.id },
      },
    ]);
    expect(ofType(messages, 'article.updated')).toEqual([
      {
        type: 'article.updated',
        timestamp: afterUpdate.updatedAt,
        data: { article: afterUpdate, version: 2, eventId: updated.id },
      },
    ]);
    const [gone] = ofType(messages, 'article.deleted');
    expect(gone?.data).toEqual({ article: afterUpdate, version: 3, eventId: deleted.id });
    const [told] = ofType(messages, 'highlight.created');
    const shown = highlights.items.find((h: { id: string }) => h.id === told?.data.highlight.id);
    expect(told?.data).toEqual({ highlight: shown, version: 1, eventId: highlight.id });
    expect(shown).toMatchObject({ article: { slug }, tags: ['goals'] });
    // One message per change: four webhook-ids.
    const ids = receivers.receivedAt(path).map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(4);
  });

  it('go only to enabled endpoints of the account that subscribe to the type', async () => {
    const publishing = await publisher();
    const stranger = await publisher();
    const tag = uniqueSlug();
    const deletes = await endpointFor(publishing.account, `/deletes-${tag}`, ['article.deleted']);
    const paused = await endpointFor(publishing.account, `/paused-${tag}`);
    const patched = await api.app.inject({
      method: 'PATCH',
      url: `/api/webhooks/endpoints/${paused.id}`,
      headers: bearer(publishing.account.token),
      payload: { enabled: false },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    await endpointFor(stranger.account, `/stranger-${tag}`);

    const slug = uniqueSlug('filtered');
    const created = await applied(publishing, 'article.create', articleData({ slug }));
    const deleted = await applied(publishing, 'article.delete', { slug });
    const [message] = await messagesAt(`/deletes-${tag}`, deletes.secret, 1);
    expect(message).toMatchObject({ type: 'article.deleted', data: { eventId: deleted.id } });

    // The create was applied before the delete, so anything it was told is recorded by now.
    const recorded = await api.deps.db.prisma.webhookMessage.findMany({
      where: { eventId: { in: [created.id, deleted.id] } },
      include: { deliveries: true },
    });
    expect(recorded.map((m) => [m.type, m.deliveries.map((d) => d.endpointId)])).toEqual([
      ['article.deleted', [deletes.id]],
    ]);
    expect(receivers.receivedAt(`/paused-${tag}`)).toHaveLength(0);
    expect(receivers.receivedAt(`/stranger-${tag}`)).toHaveLength(0);
  });

  it('tell each update of a busy article apart: its own state and version', async () => {
    const publishing = await publisher();
    const path = `/busy-${uniqueSlug()}`;
    const { secret } = await endpointFor(publishing.account, path, ['article.updated']);
    const slug = uniqueSlug('busy');
    await applied(publishing, 'article.create', articleData({ slug }));
    // Sent back to back, so that the worker applies them in runs of one transaction.
    const titles = Array.from({ length: 30 }, (_, i) => `Take ${i + 1}`);
    const ids: string[] = [];
    for (const title of titles) {
      ids.push(await accept(api, publishing.key, 'article.update', { slug, title }));
    }
    for (const id of ids)
      expect((await finalReceipt(api, publishing.key, id)).status).toBe('succeeded');

    const messages = ofType(await messagesAt(path, secret, titles.length), 'article.updated');
    const byVersion = messages
      .map(({ data }) => [data.version, data.eventId, data.article.title])
      .sort(([a], [b]) => Number(a) - Number(b));
    expect(byVersion).toEqual(titles.map((title, i) => [i + 2, ids[i], title]));
  });

  it('are not written for a change that failed', async () => {
    const publishing = await publisher();
    const path = `/failures-${uniqueSlug()}`;
    const { secret } = await endpointFor(publishing.account, path);
    const missing = await applied(publishing, 'article.update', {
      slug: uniqueSlug('missing'),
      title: 'Nothing to update',
    });
    expect(missing.receipt.status).toBe('failed');
    const slug = uniqueSlug('after');
    const created = await applied(publishing, 'article.create', articleData({ slug }));
    const messages = await messagesAt(path, secret, 1);
    expect(messages.map((m) => m.type)).toEqual(['article.created']);
    expect(messages[0]?.data).toMatchObject({ eventId: created.id });
    expect(await api.deps.db.prisma.webhookMessage.count({ where: { eventId: missing.id } })).toBe(
      0,
    );
  });
});

describe('the delivery reconciler', () => {
  it('queues again a pending delivery whose job Redis does not have, once', async () => {
    const { account } = await publisher();
    const { id: endpointId } = await endpointFor(account, `/lost-${uniqueSlug()}`);
    const messageId = uuidv7();
    const deliveryId = uuidv7();
    // As if its job had been lost: recorded, overdue, in no queue.
    await api.deps.db.prisma.webhookMessage.create({
      data: { id: messageId, accountId: account.id, type: 'ping', body: '{}' },
    });
    await api.deps.db.prisma.webhookDelivery.create({
      data: { id: deliveryId, messageId, endpointId, nextAttemptAt: new Date(Date.now() - 60_000) },
    });
    // A queue of its own, which no worker consumes: the job stays where the reconciler put it.
    const config = loadWorkerConfig({
      ...testEnv(`${api.tag}-reconciler`),
      RECONCILE_AFTER_MS: '100',
    });
    const deliveryQueue = createDeliveryQueue(api.deps.redis, config.redis);
    const deps = {
      db: api.deps.db,
      deliveryQueue,
      config,
      logger: createLogger({ level: 'silent', name: 'worker' }),
    };
    try {
      expect(await deliveryQueue.getJobState(deliveryId)).toBe('unknown');
      await reconcileDeliveries(deps);
      expect(await deliveryQueue.getJobState(deliveryId)).toBe('waiting');
      await reconcileDeliveries(deps);
      const jobs = await deliveryQueue.getJobs(['waiting']);
      expect(jobs.filter((job) => job.id === deliveryId)).toHaveLength(1);
      // Finished deliveries are left alone.
      await api.deps.db.prisma.webhookDelivery.update({
        where: { id: deliveryId },
        data: { status: 'succeeded' },
      });
      await deliveryQueue.obliterate({ force: true });
      await reconcileDeliveries(deps);
      expect(await deliveryQueue.getJobState(deliveryId)).toBe('unknown');
    } finally {
      await deliveryQueue.obliterate({ force: true });
      await deliveryQueue.close();
    }
  });
});
