// Retention of outgoing webhook messages (WEBHOOK_RETENTION_DAYS) on the test database:
// messages and deliveries are written directly, dated in the past, and expired by the
// worker's own function. "Old" is 10 to 20 days against a retention of 7: other files'
// workers keep the default 30 days, so only this file's calls delete these rows.
import { DAY_MS } from '@ingest/contracts';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireWebhookMessages } from '@ingest/worker/deliveries/expire-messages';
import { bearer, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { startTestApi, type TestApi } from './support/test-api.js';

const RETENTION_DAYS = 7;
const OLD_DAYS = 10;
const RECENT_DAYS = 1;

type DeliveryStatus = 'pending' | 'held' | 'succeeded' | 'failed';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api?.close();
});

const expire = (options: { retentionDays?: number; batchSize?: number; batchesPerCall?: number }) =>
  expireWebhookMessages(api.deps.db.pool, { retentionDays: RETENTION_DAYS, ...options });

interface Subscriber {
  account: RegisteredAccount;
  endpointId: string;
}

async function subscriber(): Promise<Subscriber> {
  const account = await registerAccount(api);
  const response = await api.app.inject({
    method: 'POST',
    url: '/api/webhooks/endpoints',
    headers: bearer(account.token),
    payload: { url: 'https://receiver.example.com/hooks' },
  });
  expect(response.statusCode, response.body).toBe(201);
  return { account, endpointId: response.json<{ id: string }>().id };
}

/**
 * A message made `daysOld` days ago with one delivery per status given. A pending one is
 * due in an hour, so that no delivery reconciler of another file takes it meanwhile; a held
 * one is due at no time, as its endpoint's pause leaves it.
 */
async function message(
  { account, endpointId }: Subscriber,
  daysOld: number,
  statuses: DeliveryStatus[],
): Promise<string> {
  const id = uuidv7();
  const createdAt = new Date(Date.now() - daysOld * DAY_MS);
  await api.deps.db.prisma.webhookMessage.create({
    data: { id, accountId: account.id, type: 'ping', body: '{}', createdAt },
  });
  await api.deps.db.prisma.webhookDelivery.createMany({
    data: statuses.map((status) => ({
      id: uuidv7(),
      messageId: id,
      endpointId,
      status,
      attempts: 1,
      createdAt,
      nextAttemptAt: status === 'pending' ? new Date(Date.now() + 3_600_000) : null,
      finishedAt: status === 'pending' || status === 'held' ? null : createdAt,
    })),
  });
  return id;
}

/** How many of `ids` are still there, and how many deliveries they have. */
async function left(ids: string[]) {
  const { prisma } = api.deps.db;
  return {
    messages: await prisma.webhookMessage.count({ where: { id: { in: ids } } }),
    deliveries: await prisma.webhookDelivery.count({ where: { messageId: { in: ids } } }),
  };
}

describe('webhook message retention', () => {
  it('deletes messages past the retention with their deliveries, and keeps newer ones', async () => {
    const sub = await subscriber();
    const old = [
      await message(sub, OLD_DAYS, ['succeeded', 'failed']),
      await message(sub, OLD_DAYS + 10, ['failed']),
      await message(sub, OLD_DAYS, []),
    ];
    const recent = [
      await message(sub, RECENT_DAYS, ['succeeded']),
      await message(sub, RETENTION_DAYS - 0.5, ['failed', 'succeeded']),
    ];

    expect(await expire({})).toEqual({ messages: 3, deliveries: 3 });
    expect(await left(old)).toEqual({ messages: 0, deliveries: 0 });
    expect(await left(recent)).toEqual({ messages: 2, deliveries: 3 });
    expect(await expire({})).toEqual({ messages: 0, deliveries: 0 });
  });

  it('keeps a message past the retention while a delivery of it is pending', async () => {
    const sub = await subscriber();
    const waiting = await message(sub, OLD_DAYS, ['failed', 'pending']);

    expect(await expire({})).toEqual({ messages: 0, deliveries: 0 });
    expect(await left([waiting])).toEqual({ messages: 1, deliveries: 2 });

    // Delivered at last: it goes with the next call.
    await api.deps.db.prisma.webhookDelivery.updateMany({
      where: { messageId: waiting, status: 'pending' },
      data: { status: 'succeeded', nextAttemptAt: null, finishedAt: new Date() },
    });
    expect(await expire({})).toEqual({ messages: 1, deliveries: 2 });
    expect(await left([waiting])).toEqual({ messages: 0, deliveries: 0 });
  });

  it('keeps a message past the retention while a delivery of it is held', async () => {
    const sub = await subscriber();
    const paused = await api.app.inject({
      method: 'POST',
      url: `/api/webhooks/endpoints/${sub.endpointId}/pause`,
      headers: bearer(sub.account.token),
    });
    expect(paused.statusCode, paused.body).toBe(200);
    const held = await message(sub, OLD_DAYS, ['succeeded', 'held']);

    expect(await expire({})).toEqual({ messages: 0, deliveries: 0 });
    expect(await left([held])).toEqual({ messages: 1, deliveries: 2 });

    // Given up on at last: it goes with the next call.
    await api.deps.db.prisma.webhookDelivery.updateMany({
      where: { messageId: held, status: 'held' },
      data: { status: 'failed', finishedAt: new Date() },
    });
    expect(await expire({})).toEqual({ messages: 1, deliveries: 2 });
    expect(await left([held])).toEqual({ messages: 0, deliveries: 0 });
  });

  it('skips a message that a resend is adding a delivery to, and then keeps it', async () => {
    const sub = await subscriber();
    const resent = await message(sub, OLD_DAYS, ['failed']);
    // A resend's INSERT, not yet committed: its foreign key check holds the message's row.
    const resend = await api.deps.db.pool.connect();
    try {
      await resend.query('BEGIN');
      await resend.query(
        `INSERT INTO webhook_deliveries (id, message_id, endpoint_id, next_attempt_at)
         VALUES ($1, $2, $3, now() + interval '1 hour')`,
        [uuidv7(), resent, sub.endpointId],
      );
      expect(await expire({})).toEqual({ messages: 0, deliveries: 0 });
      await resend.query('COMMIT');
    } finally {
      resend.release();
    }
    expect(await expire({})).toEqual({ messages: 0, deliveries: 0 });
    expect(await left([resent])).toEqual({ messages: 1, deliveries: 2 });
  });

  it("leaves other accounts' rows alone", async () => {
    const expiring = await subscriber();
    const other = await subscriber();
    const gone = await message(expiring, OLD_DAYS, ['succeeded']);
    const othersRows = [
      await message(other, RECENT_DAYS, ['succeeded', 'failed']),
      await message(other, OLD_DAYS, ['pending']),
    ];

    expect(await expire({})).toEqual({ messages: 1, deliveries: 1 });
    expect(await left([gone])).toEqual({ messages: 0, deliveries: 0 });
    expect(await left(othersRows)).toEqual({ messages: 2, deliveries: 3 });
  });

  it('deletes nothing when the retention is 0', async () => {
    const sub = await subscriber();
    const ancient = await message(sub, OLD_DAYS + 10, ['succeeded']);

    expect(await expire({ retentionDays: 0 })).toEqual({ messages: 0, deliveries: 0 });
    expect(await left([ancient])).toEqual({ messages: 1, deliveries: 1 });
    // Not kept for any other reason: with a retention, it goes.
    expect(await expire({})).toEqual({ messages: 1, deliveries: 1 });
  });

  it('deletes a bounded number a call, and repeated calls finish', async () => {
    const sub = await subscriber();
    const old: string[] = [];
    for (let i = 0; i < 5; i += 1) old.push(await message(sub, OLD_DAYS + i, ['succeeded']));
    const bounds = { batchSize: 2, batchesPerCall: 2 };

    expect(await expire(bounds)).toEqual({ messages: 4, deliveries: 4 });
    // Oldest first: the newest of the five is the one left.
    expect(await left(old)).toEqual({ messages: 1, deliveries: 1 });
    expect(await left(old.slice(0, 1))).toEqual({ messages: 1, deliveries: 1 });
    expect(await expire(bounds)).toEqual({ messages: 1, deliveries: 1 });
    expect(await expire(bounds)).toEqual({ messages: 0, deliveries: 0 });
    expect(await left(old)).toEqual({ messages: 0, deliveries: 0 });
  });
});
