// GET /api/event-types against a real API with non-default content limits: the catalog
// lists what the service accepts and sends, its schemas agree with the service's own
// validation (the same payloads pass both, and fail both), and /openapi.json describes
// the outgoing messages as webhooks and links to the catalog.
import {
  EVENT_NAMES,
  EVENT_TYPES,
  MESSAGE_TYPES,
  OutgoingMessageSchema,
  SUBSCRIBABLE_MESSAGE_TYPES,
  type EventCatalog,
  type EventName,
} from '@ingest/events';
import { DEFAULT_CONTENT_LIMITS } from '@ingest/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ajv2020 } from './contract/support/eov.js';
import { createKey, registerAccount } from './support/accounts.js';
import { sendEvent } from './support/content.js';
import { expectProblem } from './support/problems.js';
import { startTestApi, type TestApi } from './support/test-api.js';

const TITLE_MAX = 42;
const TAGS_MAX = 3;
const ajv = ajv2020({});
const scopeOfEvent = (name: EventName): string => EVENT_TYPES[name].scope;

let api: TestApi;
let catalog: EventCatalog;
/** A key with exactly one scope, by scope. */
const keys = new Map<string, string>();

beforeAll(async () => {
  api = await startTestApi({
    CONTENT_TITLE_MAX_CHARS: String(TITLE_MAX),
    CONTENT_TAGS_MAX: String(TAGS_MAX),
  });
  const account = await registerAccount(api);
  for (const scope of ['content:create', ...EVENT_NAMES.map(scopeOfEvent)]) {
    keys.set(scope, (await createKey(api, account, { name: scope, scopes: [scope] })).key);
  }
  const response = await api.app.inject({ method: 'GET', url: '/api/event-types' });
  expect(response.statusCode, response.body).toBe(200);
  catalog = response.json();
});
afterAll(() => api?.close());

const incoming = (name: EventName) => catalog.incoming.find((type) => type.name === name)!;

// One payload each schema and service must accept, and several each must refuse: by the
// configured limits, by the shape, and by an unknown field.
const title = 't'.repeat(TITLE_MAX);
const PAYLOADS: Record<EventName, { valid: object; invalid: object[] }> = {
  'article.create': {
    valid: { title, body: ['A paragraph.'], category: 'News' },
    invalid: [
      { title: `${title}t`, body: ['A paragraph.'] },
      { title: 'Fine', body: [] },
      { title: 'Fine', body: ['A paragraph.'], colour: 'red' },
    ],
  },
  'article.update': {
    valid: { slug: 'catalog-article', title, readMinutes: null },
    invalid: [
      { slug: 'Not A Slug', title: 'Fine' },
      { slug: 'catalog-article', readMinutes: 0 },
    ],
  },
  'article.delete': {
    valid: { slug: 'catalog-article' },
    invalid: [{}, { slug: 'catalog-article', title: 'Fine' }],
  },
  'highlight.create': {
    valid: { title, videoUrl: 'https://video.example.com/v.mp4', tags: ['a', 'b', 'c'] },
    invalid: [
      { title: 'Fine', videoUrl: 'https://video.example.com/v.mp4', tags: ['a', 'b', 'c', 'd'] },
      { title: 'Fine', videoUrl: 'https://video.example.com/v.mp4', durationSeconds: 0 },
      { title: 'Fine' },
    ],
  },
  'highlight.update': {
    valid: { id: '0190a000-0000-7000-8000-000000000001', title, description: null },
    invalid: [
      { id: '0190a000-0000-7000-8000-000000000001', title: '' },
      { id: 'not-a-uuid', title: 'Fine' },
      { id: '0190a000-0000-7000-8000-000000000001', tags: ['a', 'b', 'c', 'd'] },
    ],
  },
  'highlight.delete': {
    valid: { id: '0190a000-0000-7000-8000-000000000001', ifVersion: 2 },
    invalid: [{}, { id: '0190a000-0000-7000-8000-000000000001', ifVersion: 0 }],
  },
};

describe('GET /api/event-types', () => {
  it('answers without credentials, cacheably: an ETag, and 304 when it is sent back', async () => {
    const first = await api.app.inject({ method: 'GET', url: '/api/event-types' });
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('public, max-age=300');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    for (const sent of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await api.app.inject({
        method: 'GET',
        url: '/api/event-types',
        headers: { 'if-none-match': sent },
      });
      expect(again.statusCode, sent).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
    }
    const stale = await api.app.inject({
      method: 'GET',
      url: '/api/event-types',
      headers: { 'if-none-match': '"an-older-catalog"' },
    });
    expect(stale.statusCode).toBe(200);
    expect(stale.json()).toEqual(catalog);
  });

  it('lists exactly the events the service accepts, each with version 1 and a description', async () => {
    expect(catalog.incoming.map((type) => type.name)).toEqual([...EVENT_NAMES]);
    // The service's own list, from the refusal of an unknown event.
    const unknown = await sendEvent(api, keys.get('content:create')!, 'article.publish', {});
    const problem = expectProblem(unknown, 400, 'UNKNOWN_EVENT');
    expect([...(problem.supportedEvents ?? [])].sort()).toEqual(
      catalog.incoming.map((type) => type.name).sort(),
    );
    for (const type of catalog.incoming) {
      expect(type.version, type.name).toBe(1);
      expect(type.description.length, type.name).toBeGreaterThan(10);
    }
  });

  it('names the scopes that allow each event, as the service checks them', async () => {
    for (const name of EVENT_NAMES) {
      expect(incoming(name).scopes).toEqual(['content:create', scopeOfEvent(name)]);
    }
    for (const [index, name] of EVENT_NAMES.entries()) {
      const { valid } = PAYLOADS[name];
      for (const scope of incoming(name).scopes) {
        const response = await sendEvent(api, keys.get(scope)!, name, valid);
        expect(response.statusCode, `${name} with ${scope}: ${response.body}`).toBe(202);
      }
      // Another event's scope does not allow it.
      const otherScope = scopeOfEvent(EVENT_NAMES[(index + 1) % EVENT_NAMES.length]!);
      expectProblem(
        await sendEvent(api, keys.get(otherScope)!, name, valid),
        403,
        'INSUFFICIENT_SCOPE',
      );
    }
  });

  it("gives each event's data schema the service's own rules: the same payloads pass and fail both", async () => {
    const key = keys.get('content:create')!;
    for (const name of EVENT_NAMES) {
      const validate = ajv.compile(incoming(name).dataSchema);
      const { valid, invalid } = PAYLOADS[name];
      expect(validate(valid), `${name} ${JSON.stringify(validate.errors)}`).toBe(true);
      const accepted = await sendEvent(api, key, name, valid);
      expect(accepted.statusCode, `${name}: ${accepted.body}`).toBe(202);
      for (const data of invalid) {
        expect(validate(data), `${name} ${JSON.stringify(data)}`).toBe(false);
        expectProblem(await sendEvent(api, key, name, data), 400, 'VALIDATION_FAILED');
      }
    }
  });

  it("shows the running configuration's limits, not the defaults", () => {
    expect(TITLE_MAX).not.toBe(DEFAULT_CONTENT_LIMITS.titleMaxChars);
    type Properties = Record<string, { maxLength?: number; maxItems?: number }>;
    const properties = (name: EventName) =>
      (incoming(name).dataSchema as { properties: Properties }).properties;
    expect(properties('article.create').title?.maxLength).toBe(TITLE_MAX);
    expect(properties('highlight.create').title?.maxLength).toBe(TITLE_MAX);
    expect(properties('highlight.create').tags?.maxItems).toBe(TAGS_MAX);
  });

  it('lists every outgoing message type, with schemas that agree with the outgoing contract', () => {
    const contractTypes = MESSAGE_TYPES.map(({ type }) => type);
    expect(catalog.outgoing.map((type) => type.type)).toEqual(contractTypes);
    expect(catalog.outgoing.filter((type) => type.subscribable).map((type) => type.type)).toEqual([
      ...SUBSCRIBABLE_MESSAGE_TYPES,
    ]);
    for (const { type, version, messageSchema } of catalog.outgoing) {
      expect(version, type).toBe(1);
      const message = sampleMessage(type);
      // A message the service's contract takes, and one it refuses, judged alike.
      expect(OutgoingMessageSchema.safeParse(message).success, type).toBe(true);
      const validate = ajv.compile(messageSchema);
      expect(validate(message), `${type} ${JSON.stringify(validate.errors)}`).toBe(true);
      const broken = {
        ...message,
        data: {
          ...message.data,
          ...(type === 'ping' || type === 'endpoint.paused'
            ? { url: 7 }
            : { eventId: 'not-a-uuid' }),
        },
      };
      expect(OutgoingMessageSchema.safeParse(broken).success, type).toBe(false);
      expect(validate(broken), type).toBe(false);
      const otherType = { ...message, type: type === 'ping' ? 'article.created' : 'ping' };
      expect(validate(otherType), type).toBe(false);
      // Receivers must ignore fields they do not know: adding one is not a new version.
      const added = { ...message, data: { ...message.data, addedLater: true } };
      expect(OutgoingMessageSchema.safeParse(added).success, type).toBe(true);
      expect(validate(added), type).toBe(true);
    }
  });
});

describe('the OpenAPI document', () => {
  interface WebhookOperation {
    operationId: string;
    parameters: Array<{ in: string; name: string; required?: boolean }>;
    requestBody: { required: boolean; content: Record<string, { schema: { $ref: string } }> };
    responses: Record<string, unknown>;
  }
  interface Document {
    info: { description: string };
    externalDocs?: { url: string };
    webhooks?: Record<string, { post?: WebhookOperation }>;
    paths: Record<string, Record<string, { security?: unknown[] }>>;
    components: { schemas: Record<string, { properties?: { type?: { const?: string } } }> };
  }
  let document: Document;
  beforeAll(async () => {
    document = (await api.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  });

  it('links to the catalog, a public operation', () => {
    expect(document.externalDocs?.url).toBe('/api/event-types');
    expect(document.info.description).toContain('`GET /api/event-types`');
    expect(document.paths['/api/event-types']?.get?.security).toEqual([]);
  });

  it('describes each outgoing message type as a webhook: its message, signature headers, 2xx', () => {
    expect(Object.keys(document.webhooks ?? {})).toEqual(catalog.outgoing.map((t) => t.type));
    for (const { type } of catalog.outgoing) {
      const operation = document.webhooks?.[type]?.post;
      expect(operation, type).toBeDefined();
      const headers = operation!.parameters.filter((p) => p.in === 'header' && p.required);
      expect(headers.map((p) => p.name)).toEqual([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]);
      expect(operation!.requestBody.required).toBe(true);
      const ref = operation!.requestBody.content['application/json']?.schema.$ref ?? '';
      const component = document.components.schemas[ref.replace('#/components/schemas/', '')];
      expect(component?.properties?.type?.const, `${type} ${ref}`).toBe(type);
      expect(Object.keys(operation!.responses)).toContain('2XX');
    }
  });
});

/** A message of `type` as the service would send it. */
function sampleMessage(type: string) {
  const author = { handle: 'catalog_bot', name: 'Catalog' };
  const at = '2026-01-02T03:04:05.000Z';
  const eventId = '0190f3a2-8c4b-7d1e-9f00-1234567890ab';
  const article = {
    slug: 'catalog-article',
    title: 'A title',
    excerpt: null,
    cover: null,
    category: 'News',
    readMinutes: 1,
    version: 1,
    author,
    createdAt: at,
    updatedAt: at,
    body: ['A paragraph.'],
  };
  const highlight = {
    id: eventId,
    title: 'A clip',
    videoUrl: 'https://video.example.com/v.mp4',
    thumbnailUrl: null,
    durationSeconds: 30,
    description: null,
    tags: ['a'],
    article: null,
    version: 1,
    author,
    createdAt: at,
    updatedAt: at,
  };
  const endpoint = { endpointId: eventId, url: 'https://hooks.example.com/in' };
  const data: Record<string, unknown> =
    type === 'ping'
      ? endpoint
      : type === 'endpoint.paused'
        ? { ...endpoint, pausedAt: at, reason: 'every attempt failed since 2026-01-02' }
        : type.startsWith('highlight.')
          ? { highlight, version: 1, eventId }
          : { article, version: 2, eventId };
  return { type, timestamp: at, data };
}
