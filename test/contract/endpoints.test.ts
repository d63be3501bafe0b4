// Outgoing webhook endpoints, fuzzed and held to the document: registration with URLs
// the target policy takes and refuses, filters and rates near the valid ones, reads,
// changes, pauses and resumes, secret rotation, pings, the deliveries list, resends and
// deletion, with another account's endpoint among the ids.
import fc from 'fast-check';
import { afterAll, beforeAll, describe } from 'vitest';
import { bearer } from '../support/accounts.js';
import { fuzzEachOperation } from './support/each-operation.js';
import type { OperationProfile } from './support/operation-requests.js';
import { startContract, type ContractSetup } from './support/setup.js';

let setup: ContractSetup;
const profiles: Record<string, OperationProfile> = {};

const TYPES = ['article.created', 'article.updated', 'article.deleted', 'highlight.created'];

/** URLs near the valid ones: public and private hosts, literal addresses, other schemes. */
const endpointUrl = fc.oneof(
  fc.constantFrom(
    'https://hooks.example.com/in',
    'https://8.8.8.8/in',
    'http://hooks.example.com/in',
    'https://127.0.0.1/in',
    'https://[::1]/in',
    'https://[::ffff:10.0.0.1]/in',
    'https://169.254.169.254/latest',
    'https://localhost/in',
    'https://user:pw@hooks.example.com/',
    'ftp://hooks.example.com/',
    'not a url',
  ),
  fc.webUrl({ validSchemes: ['https'] }),
  fc.string(),
);

const FIELDS = ['data.article.slug', 'data.article.category', 'data.version', 'type', 'data.x'];
const scalar = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));
/** Filters of every form, some naming fields no type has, and shapes near them. */
const { filter } = fc.letrec<{ filter: unknown }>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small' },
    fc.record({ field: fc.constantFrom(...FIELDS), eq: scalar }),
    fc.record({ field: fc.constantFrom(...FIELDS), prefix: fc.string({ maxLength: 8 }) }),
    fc.record({ field: fc.constantFrom(...FIELDS), in: fc.array(scalar, { maxLength: 3 }) }),
    fc.record({ field: fc.constantFrom(...FIELDS), exists: fc.boolean() }),
    fc.record({ and: fc.array(tie('filter'), { maxLength: 3 }) }),
    fc.record({ or: fc.array(tie('filter'), { maxLength: 3 }) }),
    fc.record({ not: tie('filter') }),
    fc.record({ field: fc.string(), eq: scalar, prefix: fc.string() }),
    fc.jsonValue({ maxDepth: 2 }),
  ),
}));
const rate = fc.option(
  fc.record(
    {
      perSecond: fc.option(fc.integer({ min: -1, max: 20_000 })),
      inFlight: fc.option(fc.integer({ min: -1, max: 2_000 })),
    },
    { requiredKeys: [] },
  ),
);

const endpointBody = fc.record(
  {
    url: endpointUrl,
    events: fc.array(fc.oneof(fc.constantFrom(...TYPES), fc.string()), { maxLength: 6 }),
    description: fc.string({ maxLength: 600 }),
    filter: fc.option(filter),
    rate,
  },
  { requiredKeys: ['url'] },
);

beforeAll(async () => {
  // Creation succeeds through the whole run: the quota has tests of its own.
  setup = await startContract({ WEBHOOK_ENDPOINT_QUOTA: '1000' });
  const { api, credentials } = setup;
  const { publisher, other } = credentials;
  const create = async (token: string, description: string) => {
    const response = await api.app.inject({
      method: 'POST',
      url: '/api/webhooks/endpoints',
      headers: bearer(token),
      payload: { url: 'https://hooks.example.com/in', description },
    });
    return response.json<{ id: string }>().id;
  };
  const deletable = await Promise.all(
    Array.from({ length: 8 }, (_, i) => create(publisher.token, `deletable ${i}`)),
  );
  const adjustable = await Promise.all(
    Array.from({ length: 4 }, (_, i) => create(publisher.token, `adjustable ${i}`)),
  );
  const others = await create(other.token, 'not yours');
  const adjustableIds = fc.constantFrom(...adjustable, others);
  // Deliveries to resend: pings of the adjustable endpoints (no worker takes them here).
  const pinged = await Promise.all(
    adjustable.map(async (id) => {
      const response = await api.app.inject({
        method: 'POST',
        url: `/api/webhooks/endpoints/${id}/test`,
        headers: bearer(publisher.token),
      });
      return response.json<{ id: string }>().id;
    }),
  );

  profiles['POST /api/webhooks/endpoints'] = { body: endpointBody };
  profiles['GET /api/webhooks/endpoints/{id}'] = { pathValues: { id: adjustableIds } };
  profiles['PATCH /api/webhooks/endpoints/{id}'] = {
    pathValues: { id: adjustableIds },
    body: fc.record(
      {
        url: endpointUrl,
        events: fc.array(fc.constantFrom(...TYPES), { maxLength: 4 }),
        description: fc.option(fc.string({ maxLength: 600 })),
        enabled: fc.boolean(),
        filter: fc.option(filter),
        rate,
      },
      { requiredKeys: [] },
    ),
  };
  profiles['POST /api/webhooks/endpoints/{id}/secret'] = { pathValues: { id: adjustableIds } };
  profiles['POST /api/webhooks/endpoints/{id}/test'] = { pathValues: { id: adjustableIds } };
  profiles['POST /api/webhooks/endpoints/{id}/pause'] = { pathValues: { id: adjustableIds } };
  profiles['POST /api/webhooks/endpoints/{id}/resume'] = { pathValues: { id: adjustableIds } };
  profiles['GET /api/webhooks/endpoints/{id}/deliveries'] = { pathValues: { id: adjustableIds } };
  profiles['POST /api/webhooks/endpoints/{id}/deliveries/{deliveryId}/resend'] = {
    pathValues: { id: adjustableIds, deliveryId: fc.constantFrom(...pinged) },
  };
  profiles['DELETE /api/webhooks/endpoints/{id}'] = {
    pathValues: { id: fc.constantFrom(...deletable, others) },
  };
});

afterAll(() => setup?.api.close());

describe('webhook endpoints answer as the document says', () => {
  fuzzEachOperation('endpoints', () => setup, profiles);
});
