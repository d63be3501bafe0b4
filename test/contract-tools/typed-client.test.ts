import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccountFields } from '../support/accounts.js';
import { startTestApi, type TestApi } from '../support/test-api.js';
import { GENERATED_TYPES_PATH, generateClientTypes, REGENERATE_COMMAND } from './client-types.js';
import { runPublishFlow } from './publish-flow.js';
import { readServedDocument } from './served-document.js';

let api: TestApi;
let baseUrl: string;

beforeAll(async () => {
  api = await startTestApi();
  // Over real HTTP: the client is fetch, as a publisher's would be.
  baseUrl = await api.app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await api?.close();
});

describe('the typed client generated from the served document', () => {
  it('is generated from the document the API serves today (generated/openapi.ts is current)', async () => {
    const generated = await generateClientTypes(await readServedDocument(api));
    const checkedIn = await readFile(GENERATED_TYPES_PATH, 'utf8').catch(() => '');
    const stale =
      `packages/client/src/generated/openapi.ts no longer matches GET /openapi.json; ` +
      `regenerate it with \`${REGENERATE_COMMAND}\`, then run \`pnpm typecheck\``;
    expect(checkedIn, stale).toBe(generated);
  });

  it('drives register, login, key, publish and receipt, and reads a refusal as a typed problem', async () => {
    const result = await runPublishFlow({
      baseUrl,
      account: newAccountFields(api),
      article: { title: 'Typed client', body: ['Written against the generated types.'] },
    });

    expect(result.apiKey.scopes).toEqual(['content:create']);
    expect(result.apiKey.key).toMatch(/^sk-/);
    expect(result.publishStatus).toBe(202);
    expect(result.accepted).toMatchObject({ event: 'article.create', status: 'queued' });
    // No worker runs in this file: the event stays queued, as recorded.
    expect(result.receipt).toMatchObject({
      id: result.accepted.id,
      event: 'article.create',
      status: 'queued',
      attempts: 0,
      receivedAt: result.accepted.receivedAt,
      result: null,
      error: null,
    });
    expect(result.wrongKey).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    expect(result.wrongKey.requestId).toEqual(expect.any(String));
  });
});
