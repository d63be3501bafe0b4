import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { TestApi } from './test-api.js';

export const uniqueSlug = (stem = 'post'): string => `${stem}-${randomBytes(4).toString('hex')}`;

export function articleData(overrides: Record<string, unknown> = {}) {
  return {
    title: 'Hello World',
    excerpt: 'A short summary',
    body: ['First paragraph.', 'Second paragraph.'],
    cover: 'https://images.example.com/cover.jpg',
    category: 'News',
    readMinutes: 3,
    ...overrides,
  };
}

export const sendEvent = (
  api: TestApi,
  key: string,
  event: string,
  data: unknown,
  headers: Record<string, string> = {},
) =>
  api.app.inject({
    method: 'POST',
    url: '/api/webhooks/content',
    headers: { 'x-api-key': key, ...headers },
    payload: { event, data } as object,
  });

/** Sends an event that must be accepted, and returns its id. */
export async function accept(
  api: TestApi,
  key: string,
  event: string,
  data: unknown,
): Promise<string> {
  const response = await sendEvent(api, key, event, data);
  expect(response.statusCode, response.body).toBe(202);
  return response.json<{ id: string }>().id;
}

/** Sends a batch that must be answered 200, and returns its events' ids, in the order sent. */
export async function acceptBatch(
  api: TestApi,
  key: string,
  events: Array<{ event: string; data: unknown }>,
): Promise<string[]> {
  const response = await api.app.inject({
    method: 'POST',
    url: '/api/webhooks/content/batch',
    headers: { 'x-api-key': key },
    payload: { events },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ results: Array<{ id: string }> }>().results.map((result) => result.id);
}

export const getReceipt = (api: TestApi, key: string, id: string) =>
  api.app.inject({
    method: 'GET',
    url: `/api/webhooks/content/${id}`,
    headers: { 'x-api-key': key },
  });

/**
 * The BullMQ state of an event's job ('active' while a worker has it). A receipt says
 * `processing` only once a claim has counted an attempt, which a first delivery's apply
 * does in its own transaction: a test waiting for an event in flight asks the queue.
 */
export async function jobStateOf(api: TestApi, id: string): Promise<string | undefined> {
  for (const queue of api.deps.queues.all) {
    const job = await queue.getJob(id);
    if (job !== undefined) return job.getState();
  }
  return undefined;
}

/** Polls a receipt until it reaches a final status, and returns it. */
export async function finalReceipt(api: TestApi, key: string, id: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const receipt = (await getReceipt(api, key, id)).json<{
      status: string;
      [field: string]: unknown;
    }>();
    if (['succeeded', 'failed', 'rejected'].includes(receipt.status)) return receipt;
    if (Date.now() > deadline)
      throw new Error(`event ${id} still ${receipt.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
