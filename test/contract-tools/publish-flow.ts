/**
 * A publisher's first call sequence, written against the types generated from the served
 * OpenAPI document and nothing else: register, log in, create a key with content:create,
 * publish an article.create event, read its receipt, and see a mistyped key refused.
 *
 * The point is that it compiles under the repository's strict settings with no type
 * assertion, no `any` and no non-null assertion: every value is narrowed from what the
 * document says each call returns. So `pnpm typecheck` fails when the document stops
 * describing this flow, and the test that runs it (typed-client.test.ts) fails when the
 * API stops behaving as described. Each answer's body is read through one of its fields
 * (`.id`, `.key`, ...) on purpose: a body the document leaves out is typed `never`, which
 * is assignable to anything but has no fields, so only a field read catches it.
 */
import { randomUUID } from 'node:crypto';
import createClient from 'openapi-fetch';
import type { components, paths } from '@ingest/client/openapi';

type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];
// Request bodies by operation rather than by component name: the names of input variants
// (`...Input`) are the zod provider's, and may change without the operations changing.
type RegisterBody =
  paths['/api/auth/register']['post']['requestBody']['content']['application/json'];
type ContentEvent =
  paths['/api/webhooks/content']['post']['requestBody']['content']['application/json'];

export interface PublishFlowInput {
  /** Where the API listens, e.g. `http://127.0.0.1:40123`. */
  baseUrl: string;
  account: RegisterBody;
  article: { title: string; body: string[] };
}

export interface PublishFlowResult {
  account: Schemas['Account'];
  apiKey: Schemas['ApiKeyCreated'];
  /** HTTP status of the publish call (202 unless `Prefer: wait` was honoured). */
  publishStatus: number;
  accepted: Schemas['AcceptedEvent'] | Schemas['Receipt'];
  receipt: Schemas['Receipt'];
  /** The answer to the same event sent with a mistyped key, read as the document's problem. */
  wrongKey: { status: number; code: Problem['code']; detail: string; requestId: string };
}

export async function runPublishFlow(input: PublishFlowInput): Promise<PublishFlowResult> {
  const client = createClient<paths>({ baseUrl: input.baseUrl });

  const registered = await client.POST('/api/auth/register', { body: input.account });
  if (!registered.data) throw callFailed('register', registered.response, registered.error);

  const loggedIn = await client.POST('/api/auth/login', {
    body: { email: input.account.email, password: input.account.password },
  });
  if (!loggedIn.data) throw callFailed('login', loggedIn.response, loggedIn.error);
  const { account, token } = loggedIn.data;
  if (account.id !== registered.data.account.id) throw new Error('login found another account');

  const created = await client.POST('/api/webhooks/api-keys', {
    headers: { authorization: `Bearer ${token}` },
    body: { name: 'typed-client', scopes: ['content:create'] },
  });
  if (!created.data) throw callFailed('create an API key', created.response, created.error);
  const apiKey = created.data;

  const event = {
    event: 'article.create',
    data: { title: input.article.title, body: input.article.body },
  } satisfies ContentEvent;

  const published = await client.POST('/api/webhooks/content', {
    // A header the document declares goes in `params`, typed; the key is a security scheme.
    params: { header: { 'idempotency-key': `typed-client-${randomUUID()}` } },
    headers: { 'x-api-key': apiKey.key },
    body: event,
  });
  if (!published.data) throw callFailed('publish', published.response, published.error);
  const accepted = published.data;

  const read = await client.GET('/api/webhooks/content/{id}', {
    params: { path: { id: accepted.id } },
    headers: { 'x-api-key': apiKey.key },
  });
  if (!read.data) throw callFailed('read the receipt', read.response, read.error);
  const receipt = read.data;
  if (receipt.id !== accepted.id) throw new Error(`asked for ${accepted.id}, read ${receipt.id}`);

  // One character off: the checksum refuses it before any database read.
  const lastChar = apiKey.key.slice(-1) === 'A' ? 'B' : 'A';
  const refused = await client.POST('/api/webhooks/content', {
    headers: { 'x-api-key': apiKey.key.slice(0, -1) + lastChar },
    body: event,
  });
  const refusedStatus = refused.response.status;
  if (refused.data) throw new Error('publishing with a mistyped key was accepted');
  // The types say an answer without data has a problem; at run time an empty body has none.
  if (!refused.error) throw new Error(`a mistyped key got ${refusedStatus} and no problem`);

  return {
    account,
    apiKey,
    publishStatus: published.response.status,
    accepted,
    receipt,
    wrongKey: {
      status: refusedStatus,
      code: refused.error.code,
      detail: refused.error.detail,
      requestId: refused.error.requestId,
    },
  };
}

/**
 * The error to throw when a call that should succeed did not. `problem` is typed from the
 * document; it is undefined at run time when the answer had no body.
 */
function callFailed(step: string, response: Response, problem: Problem | undefined): Error {
  const what = problem ? `${problem.code}: ${problem.detail}` : 'no problem document';
  return new Error(`${step} failed: HTTP ${response.status} ${what}`);
}
