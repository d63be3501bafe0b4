import { AcceptedEventSchema, type AcceptedEvent, type ContentLimits } from '@ingest/contracts';
import type fc from 'fast-check';
import { expect } from 'vitest';
import { createKey, registerAccount, type RegisteredAccount } from '../../support/accounts.js';
import type { TestApi } from '../../support/test-api.js';
import { categoryMark, markCategory } from './category-marks.js';
import type { ContentRequest, KeyChoice } from './envelope-arbitraries.js';
import { toJsonText } from './json-text.js';
import { contentOutcomes } from './oracles.js';
import { settleAll } from './property-runs.js';
import { postText } from './raw-requests.js';
import { expectOneOf } from './response-checks.js';

const CONTENT_URL = '/api/webhooks/content';
const NARROW_SCOPES = ['article:update'];

export interface ContentContext {
  api: TestApi;
  account: RegisteredAccount;
  publisherKey: string;
  narrowKey: string;
  /** The content limits the API runs with: its event schemas are built for them. */
  limits: ContentLimits;
  /** Marks the categories of this file's events (category-marks.ts). */
  mark: string;
  /** Ids of the events refused so far, checked in one query at the end. */
  refusedIds: string[];
}

/** A publisher with two keys: one for every event, one for article.update alone. */
export async function contentContext(api: TestApi): Promise<ContentContext> {
  const account = await registerAccount(api);
  const { key: publisherKey } = await createKey(api, account);
  const { key: narrowKey } = await createKey(api, account, {
    name: 'narrow',
    scopes: NARROW_SCOPES,
  });
  return {
    api,
    account,
    publisherKey,
    narrowKey,
    limits: api.deps.config.content,
    mark: categoryMark(api),
    refusedIds: [],
  };
}

function presented(
  context: ContentContext,
  choice: KeyChoice,
): { headers: Record<string, string>; scopes: string[] | undefined } {
  switch (choice.kind) {
    case 'publisher':
      return { headers: { 'x-api-key': context.publisherKey }, scopes: ['content:create'] };
    case 'narrow':
      return { headers: { 'x-api-key': context.narrowKey }, scopes: NARROW_SCOPES };
    case 'none':
      return { headers: {}, scopes: undefined };
    case 'forged':
      return { headers: { 'x-api-key': choice.value }, scopes: undefined };
  }
}

/**
 * The requests a property sends, with their valid categories marked for cleanup
 * (category-marks.ts).
 */
export const prepared = (requests: fc.Arbitrary<ContentRequest>, context: ContentContext) =>
  requests.map((request) => ({ ...request, body: markCategory(request.body, context.mark) }));

/** Sends one request and checks its answer; returns the job it must have made, if any. */
async function sendChecked(
  context: ContentContext,
  request: ContentRequest,
): Promise<{ accepted?: AcceptedEvent; refusedId?: string }> {
  const { api } = context;
  const text = toJsonText(request.body);
  const key = presented(context, request.key);
  const answer = await postText(api, CONTENT_URL, text, request.contentType, key.headers);
  const bodyLimit = api.deps.config.limits.contentBodyBytes;
  const sent = { text, contentType: request.contentType, bodyLimit };
  const { problem } = expectOneOf(answer, contentOutcomes(sent, key.scopes, context.limits));
  if (answer.statusCode !== 202) return { refusedId: problem?.eventId };
  const accepted = AcceptedEventSchema.parse(answer.json());
  expect(answer.headers.location).toBe(`${CONTENT_URL}/${accepted.id}`);
  return { accepted };
}

/**
 * Sends a batch of content requests at once and checks the two properties of the
 * endpoint: each answer is the documented one (never a 5xx; a 4xx is the problem
 * document), and refused requests queue nothing: no job under a refused event's id,
 * and the queue grows by exactly the accepted events, each under its own id. No other
 * process writes this file's queue, so the count pins down what the batch queued.
 */
export async function checkContentBatch(
  context: ContentContext,
  requests: ContentRequest[],
): Promise<void> {
  const queue = context.api.deps.queues.all[0]!; // one shard: a single Redis, by default
  const jobsBefore = await queue.getJobCountByTypes();
  const results = await settleAll(requests, (request) => sendChecked(context, request));
  const accepted = results.flatMap((result) => (result.accepted ? [result.accepted] : []));
  const refusedIds = results.flatMap((result) => (result.refusedId ? [result.refusedId] : []));
  expect(await queue.getJobCountByTypes(), 'jobs queued beyond the accepted events').toBe(
    jobsBefore + accepted.length,
  );
  for (const event of accepted) expect((await queue.getJob(event.id))?.name).toBe(event.event);
  for (const id of refusedIds) {
    expect(await queue.getJob(id), `refused event ${id} has a job`).toBeUndefined();
  }
  context.refusedIds.push(...refusedIds);
}

/** After a property: every refused event is recorded as `rejected` (one query for all). */
export async function expectRefusalsRecorded(context: ContentContext): Promise<void> {
  const rows = await context.api.deps.db.prisma.webhookLog.findMany({
    where: { id: { in: context.refusedIds } },
    select: { status: true, accountId: true },
  });
  expect(rows).toHaveLength(context.refusedIds.length);
  for (const row of rows)
    expect(row).toEqual({ status: 'rejected', accountId: context.account.id });
}
