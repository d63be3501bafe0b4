// The examples of /openapi.json, which the reference at /docs shows and a reader copies:
// each is valid for the schema it sits in, and each request body's example, sent as shown
// with real credentials, gets its operation's success status and an answer the document
// allows (headers included: the contract suite's oracle judges it).
import { EVENT_NAMES } from '@ingest/events';
import { purgeAccountEvents } from '@ingest/event-log';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadServedDocument,
  operationsOf,
  resolve,
  type JsonSchema,
  type OpenApiDocument,
  type Operation,
} from './contract/support/document.js';
import { ajv2020 } from './contract/support/eov.js';
import { ContractValidator } from './contract/support/validator.js';
import { startTestApi, type TestApi } from './support/test-api.js';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every example in the document, with the schema it must be valid for. */
function examplesOf(
  document: OpenApiDocument,
): Array<{ at: string; schema: Json; value: unknown }> {
  const found: Array<{ at: string; schema: Json; value: unknown }> = [];
  const visit = (node: unknown, at: string, parentKey: string): void => {
    if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${at}/${i}`, ''));
    if (!isObject(node)) return;
    // A property named `example` is a field, not an example.
    const isSchemaMap = parentKey === 'properties';
    // Media types, parameters and headers hold a schema; a schema is its own.
    const schema = isObject(node.schema) ? node.schema : node;
    if (!isSchemaMap && 'example' in node) found.push({ at, schema, value: node.example });
    if (!isSchemaMap && Array.isArray(node.examples)) {
      node.examples.forEach((value, i) => found.push({ at: `${at}/examples/${i}`, schema, value }));
    } else if (!isSchemaMap && isObject(node.examples)) {
      for (const [name, example] of Object.entries(node.examples)) {
        found.push({
          at: `${at}/examples/${name}`,
          schema,
          value: resolve<Json>(document, example as Json).value,
        });
      }
    }
    for (const [key, child] of Object.entries(node)) visit(child, `${at}/${key}`, key);
  };
  visit(document, '#', '');
  return found;
}

const idOf = (operation: Operation): string | undefined =>
  (operation.object as { operationId?: string }).operationId;

/** The examples of an operation's JSON request body. */
function requestExamplesOf(document: OpenApiDocument, operation: Operation): unknown[] {
  const schema = operation.object.requestBody?.content?.['application/json']?.schema;
  if (schema === undefined) return [];
  const examples = resolve<JsonSchema>(document, schema).examples;
  return Array.isArray(examples) ? examples : [];
}

// The order a publisher meets them: an account, a token, a key, events, an endpoint; then
// the same account as an operator; then its erasure. Each names the status its example gets.
const FLOW: Array<[operationId: string, status: number]> = [
  ['registerAccount', 201],
  ['logIn', 200],
  ['createApiKey', 201],
  ['publishEvent', 202],
  ['publishEvents', 200],
  ['updateApiKey', 200],
  ['createEndpoint', 201],
  ['updateEndpoint', 200],
  ['logInOperator', 200],
  ['resendFailedDeliveries', 200],
  ['setAccountRetention', 200],
  // Last: the account erases itself, with the password it registered with.
  ['eraseOwnAccount', 202],
];

let api: TestApi;
let document: OpenApiDocument;
let validator: ContractValidator;

async function removeAccount(email: string): Promise<void> {
  const { prisma, pool } = api.deps.db;
  const account = await prisma.account.findUnique({ where: { email }, select: { id: true } });
  if (account === null) return;
  await purgeAccountEvents(pool, [account.id]);
  await prisma.account.delete({ where: { id: account.id } });
}

const registerExample = () => {
  const operation = operationsOf(document).find((o) => o.key === 'POST /api/auth/register')!;
  return requestExamplesOf(document, operation)[0] as { email: string };
};

beforeAll(async () => {
  api = await startTestApi();
  document = await loadServedDocument(api);
  validator = new ContractValidator(document);
  // The example's account is a fixed one: left by an interrupted run, it is removed first.
  await removeAccount(registerExample().email);
});
afterAll(async () => {
  if (document !== undefined) await removeAccount(registerExample().email);
  await api?.close();
});

describe('the examples of the OpenAPI document', () => {
  it('are each valid for the schema they sit in', () => {
    const examples = examplesOf(document);
    expect(examples.length).toBeGreaterThan(0);
    const ajv = ajv2020({});
    const invalid = examples.flatMap(({ at, schema, value }) => {
      const validate = ajv.compile({ ...schema, components: document.components ?? {} });
      if (validate(value)) return [];
      const reasons = (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
      return [`${at}: ${[...new Set(reasons)].join('; ')}`];
    });
    expect(invalid).toEqual([]);
  });

  it('show an event of every type for publishing, and a body for every step of the flow', () => {
    const operations = operationsOf(document);
    const publish = operations.find((o) => idOf(o) === 'publishEvent')!;
    const events = requestExamplesOf(document, publish).map((body) => (body as Json).event);
    expect(events).toEqual([...EVENT_NAMES]);
    const withExamples = operations
      .filter((operation) => requestExamplesOf(document, operation).length > 0)
      .map(idOf);
    expect(new Set(withExamples)).toEqual(new Set(FLOW.map(([id]) => id)));
  });

  it('are accepted by their operation when sent as shown', async () => {
    const operations = operationsOf(document);
    const ids: Record<string, string> = {};
    let token = '';
    let apiKey = '';
    for (const [operationId, status] of FLOW) {
      const operation = operations.find((o) => idOf(o) === operationId)!;
      const schemes = (operation.object.security ?? []).flatMap((entry) => Object.keys(entry));
      const url = operation.path.replace('{id}', () => {
        if (operation.path.includes('api-keys')) return ids.apiKey!;
        return operation.path.includes('accounts') ? ids.account! : ids.endpoint!;
      });
      for (const body of requestExamplesOf(document, operation)) {
        const response = await api.app.inject({
          method: operation.method as 'POST',
          url,
          headers: schemes.includes('bearerAuth')
            ? { authorization: `Bearer ${token}` }
            : schemes.includes('apiKeyAuth')
              ? { 'x-api-key': apiKey }
              : {},
          payload: body as Json,
        });
        const answer = `${operation.key} ${JSON.stringify(body)}: ${response.body}`;
        expect(response.statusCode, answer).toBe(status);
        const observed = {
          statusCode: response.statusCode,
          headers: response.headers,
          body: response.body,
        };
        expect(validator.validate(operation.method, operation.path, observed), answer).toEqual([]);
        const json = response.json<Json>();
        if (operationId === 'registerAccount') {
          // The same account logs in as an operator at the end of the flow.
          ids.account = (json.account as Json).id as string;
          await api.deps.db.prisma.account.update({
            where: { id: ids.account },
            data: { role: 'admin' },
          });
        }
        if (operationId === 'logIn') token = json.token as string;
        if (operationId === 'createApiKey')
          [ids.apiKey, apiKey] = [json.id as string, json.key as string];
        if (operationId === 'createEndpoint') ids.endpoint = json.id as string;
      }
    }
  }, 60_000);
});
