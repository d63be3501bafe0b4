// The operator API, fuzzed and held to the document: the session login and logout, the
// queue and its pause, accounts' backlogs and shares, event search, detail and replay,
// endpoints, deliveries and resends. Operators come with a bearer token
// and with the session cookie (and foreign Origins); a worker runs, so that events fail
// for real, and a replayed event fails again and can be replayed again.
import { EVENT_NAMES } from '@ingest/events';
import fc from 'fast-check';
import { afterAll, beforeAll, describe } from 'vitest';
import { loginBody } from '../properties/support/auth-arbitraries.js';
import { hostileValue } from '../properties/support/hostile-values.js';
import { nearValid } from '../properties/support/mutations.js';
import { registerAccount } from '../support/accounts.js';
import { accept, finalReceipt, uniqueSlug } from '../support/content.js';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';
import { queryValue } from './support/arbitraries.js';
import { fuzzEachOperation } from './support/each-operation.js';
import type { OperationProfile } from './support/operation-requests.js';
import { FuzzRequest } from './support/requests.js';
import { startContract, type ContractSetup } from './support/setup.js';

let setup: ContractSetup;
let worker: WorkerProcess | undefined;
const profiles: Record<string, OperationProfile> = {};

/**
 * A bulk retry replays every failed event its filters match, across all accounts, and the
 * test database is shared with files running beside this one: a retry without
 * `accountId` would replay their failed events. So a JSON object body that lacks one gets
 * this file's publisher's; everything else about the body stays as generated.
 */
function scopedToAccount(accountId: string) {
  return (request: FuzzRequest): FuzzRequest => {
    if (typeof request.body !== 'string') return request;
    let parsed: unknown;
    try {
      parsed = JSON.parse(request.body);
    } catch {
      return request;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return request;
    if (Object.hasOwn(parsed, 'accountId')) return request;
    const open = request.body.indexOf('{');
    const rest = request.body.slice(open + 1).trimStart();
    const body = `${request.body.slice(0, open)}{"accountId":${JSON.stringify(accountId)}${rest.startsWith('}') ? '' : ','}${rest}`;
    return new FuzzRequest(request.method, request.path, request.query, request.headers, body);
  };
}

beforeAll(async () => {
  setup = await startContract();
  const { api, credentials } = setup;
  const { publisher, other, admin } = credentials;
  worker = await startWorkerProcess(api.tag);
  const key = credentials.keys['content:create'];
  const slugs = [uniqueSlug('missing'), uniqueSlug('missing'), uniqueSlug('missing')];
  // Updates of articles that do not exist fail for good (ARTICLE_NOT_FOUND): retryable.
  const failed = await Promise.all(
    slugs.map((slug) => accept(api, key, 'article.update', { slug, title: 'x' })),
  );
  for (const id of failed) await finalReceipt(api, key, id);
  const succeeded = await accept(api, key, 'article.delete', { slug: uniqueSlug('none') });
  const keyIds = (
    await api.app.inject({
      method: 'GET',
      url: '/api/webhooks/api-keys',
      headers: { authorization: `Bearer ${publisher.token}` },
    })
  )
    .json<{ items: { id: string }[] }>()
    .items.map((item) => item.id);
  // An endpoint of the publisher's, and a delivery of it that fails (the name never resolves).
  const endpoint = await api.app.inject({
    method: 'POST',
    url: '/api/webhooks/endpoints',
    headers: { authorization: `Bearer ${publisher.token}` },
    payload: { url: 'https://receiver.invalid/hooks' },
  });
  const endpointId = endpoint.json<{ id: string }>().id;
  const ping = await api.app.inject({
    method: 'POST',
    url: `/api/webhooks/endpoints/${endpointId}/test`,
    headers: { authorization: `Bearer ${publisher.token}` },
  });
  const deliveryId = ping.json<{ id: string }>().id;
  const search = await api.app.inject({
    method: 'GET',
    url: `/api/admin/events?limit=1&accountId=${publisher.id}`,
    headers: { authorization: `Bearer ${admin.token}` },
  });
  const cursor = search.json<{ nextCursor: string }>().nextCursor;

  const eventId = fc.constantFrom(...failed, succeeded);
  const accountId = fc.constantFrom(publisher.id, other.id);
  const isoDate = fc
    .date({
      min: new Date('2020-01-01T00:00:00Z'),
      max: new Date('2100-01-01T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((date) => date.toISOString());
  const payloads = [
    '{}',
    '{"title":"x"}',
    '{"category":"News"}',
    '[]',
    'null',
    '{"a":',
    '"text"',
    '{"t":"\u0000"}',
  ];

  profiles['POST /api/admin/session'] = { body: loginBody([admin, publisher]) };
  profiles['GET /api/admin/events'] = {
    queryValues: {
      accountId,
      apiKeyId: fc.constantFrom(...keyIds),
      slug: fc.constantFrom(...slugs),
      payload: fc.constantFrom(...payloads),
      event: fc.constantFrom(...EVENT_NAMES),
      cursor: fc.constant(cursor),
    },
  };
  profiles['GET /api/admin/events/{id}'] = { pathValues: { id: eventId } };
  profiles['GET /api/admin/endpoints'] = {
    queryValues: { accountId, state: fc.constantFrom('enabled', 'failing', 'disabled') },
  };
  profiles['GET /api/admin/deliveries'] = {
    queryValues: { accountId, endpointId: fc.constant(endpointId), eventId },
  };
  profiles['POST /api/admin/deliveries/{id}/resend'] = {
    pathValues: { id: fc.constant(deliveryId) },
  };
  profiles['POST /api/admin/deliveries/resend'] = {
    body: nearValid(
      fc.record(
        {
          status: fc.constant('failed'),
          accountId,
          endpointId: fc.constant(endpointId),
          type: fc.constantFrom('article.created', 'ping'),
          eventId,
        },
        { requiredKeys: ['accountId'] },
      ),
      {
        status: fc.oneof(fc.constantFrom('pending', ''), hostileValue),
        accountId: fc.oneof(fc.uuid(), hostileValue),
        endpointId: hostileValue,
        type: hostileValue,
      },
    ),
    // As for events: a resend without an account would resend other files' deliveries.
    adjust: scopedToAccount(publisher.id),
  };
  profiles['GET /api/admin/accounts/{id}/share'] = { pathValues: { id: accountId } };
  // Erasure is for good: only accounts made to be erased, never the publishers above.
  const [doomed, erased] = await Promise.all([registerAccount(api), registerAccount(api)]);
  const erasure = await api.app.inject({
    method: 'DELETE',
    url: `/api/admin/accounts/${erased.id}`,
    headers: { authorization: `Bearer ${admin.token}` },
  });
  profiles['DELETE /api/admin/accounts/{id}'] = {
    pathValues: { id: fc.oneof(fc.constantFrom(doomed.id, doomed.handle), fc.uuid()) },
  };
  profiles['GET /api/admin/erasures/{id}'] = {
    pathValues: { id: fc.oneof(fc.constant(erasure.json<{ id: string }>().id), fc.uuid()) },
  };
  profiles['PUT /api/admin/accounts/{id}/retention'] = {
    pathValues: { id: accountId },
    body: nearValid(fc.record({ days: fc.option(fc.integer({ min: 1, max: 3_650 })) }), {
      days: fc.oneof(fc.constantFrom(0, -1, 1.5, 3_651, '7'), hostileValue),
    }),
  };
  profiles['GET /api/admin/accounts/{id}'] = {
    pathValues: { id: fc.oneof(accountId, fc.constant(publisher.handle)) },
  };
  profiles['GET /api/admin/history'] = {
    queryValues: {
      window: fc.constantFrom('hour', 'day'),
      account: fc.oneof(accountId, fc.constant(publisher.handle)),
    },
  };
  profiles['PUT /api/admin/accounts/{id}/share'] = {
    pathValues: { id: accountId },
    body: nearValid(
      fc.record({
        weight: fc.integer({ min: 1, max: 1_000 }),
        maxInFlight: fc.option(fc.integer({ min: 1, max: 10_000 })),
      }),
      {
        weight: fc.oneof(fc.constantFrom(0, -1, 1.5, 1_001, '2'), hostileValue),
        maxInFlight: fc.oneof(fc.constantFrom(0, 10_001, 2.5, '3'), hostileValue),
      },
    ),
  };
  profiles['POST /api/admin/events/{id}/retry'] = { pathValues: { id: eventId } };
  // The preview takes the retry's body and changes nothing.
  profiles['POST /api/admin/events/retry'] = profiles['POST /api/admin/events/retry/preview'] = {
    body: nearValid(
      fc.record(
        {
          status: fc.constant('failed'),
          event: fc.constantFrom(...EVENT_NAMES),
          accountId,
          apiKeyId: fc.constantFrom(...keyIds),
          slug: fc.constantFrom(...slugs),
          error: fc.constantFrom('ARTICLE_NOT_FOUND', 'PROCESSING_FAILED', 'SLUG_TAKEN'),
          from: isoDate,
          to: isoDate,
          failedSince: isoDate,
          payload: fc.constantFrom({}, { title: 'x' }, { category: 'News' }),
          includeOwnFailures: fc.boolean(),
        },
        { requiredKeys: ['accountId'] },
      ),
      {
        status: fc.oneof(fc.constantFrom('queued', 'FAILED', ''), hostileValue),
        event: hostileValue,
        accountId: fc.oneof(fc.uuid(), hostileValue),
        apiKeyId: fc.oneof(fc.uuid(), hostileValue),
        error: fc.oneof(fc.constantFrom('slug_taken', '', 'A'.repeat(65)), hostileValue),
        from: fc.oneof(
          queryValue({ type: 'string', format: 'date-time' }).map(decodeURIComponentSafe),
          hostileValue,
        ),
        to: hostileValue,
        failedSince: hostileValue,
        payload: fc.oneof(fc.constantFrom('{}', [], null, { a: '\u0000' }), hostileValue),
        includeOwnFailures: fc.oneof(fc.constantFrom('true', 1, null), hostileValue),
      },
    ),
    adjust: scopedToAccount(publisher.id),
  };
});

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

afterAll(async () => {
  await worker?.stop();
  await setup?.api.close();
});

describe('the operator API answers as the document says', () => {
  fuzzEachOperation('admin', () => setup, profiles);
});
