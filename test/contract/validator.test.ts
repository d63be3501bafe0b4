// The oracle is tested before it is trusted: against the served document, it accepts a
// known-good response and refuses each kind of known-bad one. And the evidence for how it
// is built (support/validator.ts): what the two installed validators do on their own.
import fc from 'fast-check';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/test-api.js';
import { schemaValue } from './support/arbitraries.js';
import {
  loadServedDocument,
  resolve,
  type HeaderObject,
  type OpenApiDocument,
  type ResponseObject,
} from './support/document.js';
import { createEovResponseValidator, type EovError } from './support/eov.js';
import { ContractValidator, type ObservedResponse } from './support/validator.js';

const PUBLISH = { method: 'POST', path: '/api/webhooks/content' } as const;
const ARTICLE = { method: 'GET', path: '/api/articles/{slug}' } as const;
const RETRY = { method: 'POST', path: '/api/admin/events/{id}/retry' } as const;

let api: TestApi;
let document: OpenApiDocument;
let validator: ContractValidator;
beforeAll(async () => {
  api = await startTestApi({ LOG_LEVEL: 'warn' });
  document = await loadServedDocument(api);
  validator = new ContractValidator(document);
});
afterAll(() => api?.close());

const declared = (method: string, path: string, status: number): ResponseObject => {
  const response = validator.declaredResponse(method, path, status);
  if (response === undefined)
    throw new Error(`the document has no ${status} for ${method} ${path}`);
  return response;
};

/** A value for each header the document declares on a response, valid by its schema. */
const declaredHeaders = (response: ResponseObject): Record<string, string> =>
  Object.fromEntries(
    Object.entries(response.headers ?? {}).map(([name, header]) => {
      const schema = resolve<HeaderObject>(document, header).schema ?? {};
      return [name.toLowerCase(), fc.sample(schemaValue(schema), { numRuns: 1, seed: 7 })[0] ?? ''];
    }),
  );

const mediaTypeOf = (response: ResponseObject): string =>
  Object.keys(response.content ?? {})[0] ?? '';

const accepted = {
  id: '01a20148-e1b0-7526-bdda-cc66b6a7ebe6',
  event: 'article.create',
  status: 'queued',
  receivedAt: '2026-11-22T00:27:13.029Z',
};

/** A 202 to POST /api/webhooks/content exactly as the document describes it. */
function goodAccepted(body: Record<string, unknown> = accepted): ObservedResponse {
  const response = declared(PUBLISH.method, PUBLISH.path, 202);
  return {
    statusCode: 202,
    headers: {
      ...declaredHeaders(response),
      'content-type': `${mediaTypeOf(response)}; charset=utf-8`,
    },
    body: JSON.stringify(body),
  };
}

/** A 404 to GET /api/articles/{slug}, the problem document, as the document describes it. */
function goodNotFound(): ObservedResponse {
  const response = declared(ARTICLE.method, ARTICLE.path, 404);
  const requestId = 'req-1';
  return {
    statusCode: 404,
    headers: {
      ...declaredHeaders(response),
      'x-request-id': requestId,
      'content-type': mediaTypeOf(response),
    },
    body: JSON.stringify({
      type: '/problems/not-found',
      title: 'Not found',
      status: 404,
      detail: 'No article has that slug',
      message: 'No article has that slug',
      code: 'NOT_FOUND',
      requestId,
    }),
  };
}

const rulesOf = (method: string, path: string, response: ObservedResponse, on = validator) =>
  on.validate(method, path, response).map((violation) => violation.rule);

describe('the contract validator, on the served document', () => {
  it('accepts known-good responses: a 202 with its body, a 404 problem', () => {
    expect(validator.validate(PUBLISH.method, PUBLISH.path, goodAccepted())).toEqual([]);
    expect(validator.validate(ARTICLE.method, ARTICLE.path, goodNotFound())).toEqual([]);
  });

  it('refuses a field of the wrong type', () => {
    const rules = rulesOf(PUBLISH.method, PUBLISH.path, goodAccepted({ ...accepted, status: 5 }));
    expect(rules.some((rule) => rule.startsWith('202 body: /status'))).toBe(true);
  });

  it('refuses a malformed value where the document gives a format', () => {
    const rules = rulesOf(
      PUBLISH.method,
      PUBLISH.path,
      goodAccepted({ ...accepted, receivedAt: '2026-02-30T00:00:00Z' }),
    );
    expect(rules.some((rule) => rule.startsWith('202 body: /receivedAt'))).toBe(true);
  });

  it('refuses a missing required field', () => {
    const { id: _id, ...withoutId } = accepted;
    const rules = rulesOf(PUBLISH.method, PUBLISH.path, goodAccepted(withoutId));
    expect(rules).toContain("202 body: /id must have required property 'id'");
  });

  it('refuses a status the operation does not declare', () => {
    const response = { ...goodAccepted(), statusCode: 418 };
    expect(rulesOf(PUBLISH.method, PUBLISH.path, response)).toEqual(['status 418 is not declared']);
  });

  it('refuses a content type the response does not declare (json for problem+json, or back)', () => {
    const good = goodNotFound();
    const declaredType = String(good.headers['content-type']);
    const wrong =
      declaredType === 'application/problem+json' ? 'application/json' : 'application/problem+json';
    const rules = rulesOf(ARTICLE.method, ARTICLE.path, {
      ...good,
      headers: { ...good.headers, 'content-type': wrong },
    });
    expect(rules).toContain(`Content-Type ${wrong} is not declared for the status`);
  });

  it('refuses a missing required header, and a header value its schema refuses', () => {
    // The served document declares no required header on this response yet: the same
    // document with one added, as the API's own declarations would add it.
    const withLocation = structuredClone(document);
    const response = resolve<ResponseObject>(
      withLocation,
      (withLocation.paths[PUBLISH.path]?.post as { responses: Record<string, ResponseObject> })
        .responses['202'] as ResponseObject,
    );
    response.headers = {
      ...response.headers,
      location: { required: true, schema: { type: 'string', pattern: '^/api/webhooks/content/' } },
    };
    const strict = new ContractValidator(withLocation);
    const good = goodAccepted();
    const location = `/api/webhooks/content/${accepted.id}`;
    expect(
      strict.validate(PUBLISH.method, PUBLISH.path, {
        ...good,
        headers: { ...good.headers, location },
      }),
    ).toEqual([]);
    const { location: _sent, ...withoutLocation } = good.headers;
    expect(
      rulesOf(PUBLISH.method, PUBLISH.path, { ...good, headers: withoutLocation }, strict),
    ).toContain('required header location is missing');
    expect(
      rulesOf(
        PUBLISH.method,
        PUBLISH.path,
        { ...good, headers: { ...good.headers, location: '/elsewhere' } },
        strict,
      ),
    ).toContain('header location does not match its schema');
  });

  it('refuses a header the response does not declare, and a body where none is declared', () => {
    const good = goodAccepted();
    expect(
      rulesOf(PUBLISH.method, PUBLISH.path, {
        ...good,
        headers: { ...good.headers, 'x-undeclared': '1' },
      }),
    ).toContain('header x-undeclared is sent but not declared for the status');
    const noContent = Object.entries(
      (
        document.paths['/api/admin/session']?.delete as {
          responses: Record<string, ResponseObject>;
        }
      ).responses,
    ).find(([, answer]) => resolve(document, answer).content === undefined);
    expect(
      noContent,
      'DELETE /api/admin/session declares a response without content',
    ).toBeDefined();
    const status = Number(noContent?.[0]);
    expect(
      rulesOf('DELETE', '/api/admin/session', { statusCode: status, headers: {}, body: 'null' }),
    ).toContain('a body was sent where the status declares none');
  });

  it("refuses the retry's 202 body where the document gives the 202 no content, or no schema", () => {
    // Issue 29: POST /api/admin/events/{id}/retry answers 202 { id, status }; a document
    // declaring that 202 empty, or with a schema that takes anything, must not pass it.
    const sent: ObservedResponse = {
      statusCode: 202,
      headers: { 'x-request-id': 'req-1', 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ id: accepted.id, status: 'queued' }),
    };
    expect(rulesOf(RETRY.method, RETRY.path, sent)).toEqual([]);
    const variant = (content: ResponseObject['content']): ContractValidator => {
      const copy = structuredClone(document);
      const responses = (copy.paths[RETRY.path]?.post as { responses: Record<string, unknown> })
        .responses;
      responses['202'] = { ...resolve<ResponseObject>(copy, responses['202'] ?? {}), content };
      return new ContractValidator(copy);
    };
    expect(rulesOf(RETRY.method, RETRY.path, sent, variant(undefined))).toContain(
      'a body was sent where the status declares none',
    );
    expect(
      rulesOf(RETRY.method, RETRY.path, sent, variant({ 'application/json': { schema: {} } })),
    ).toContain('the document gives application/json no schema for the status');
  });
});

describe('why an adapter over express-openapi-validator (what each library does alone)', () => {
  it('openapi-backend reads our 3.1 document as 3.0, refuses it, and when made to load it checks too little', async () => {
    const withIds = structuredClone(document);
    for (const [path, item] of Object.entries(withIds.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        (operation as { operationId?: string }).operationId = `${method} ${path}`;
      }
    }
    const strict = new OpenAPIBackend({
      definition: structuredClone(withIds) as unknown as Document,
      strict: true,
    });
    await expect(strict.init()).rejects.toThrow(/not valid OpenAPI/);

    const quick = new OpenAPIBackend({
      definition: withIds as unknown as Document,
      quick: true,
      ajvOpts: { logger: false },
    });
    await quick.init();
    const publish = quick.getOperation(`post ${PUBLISH.path}`);
    const article = quick.getOperation(`get ${ARTICLE.path}`);
    if (publish === undefined || article === undefined) throw new Error('operations not found');
    // An undeclared status passes: there is no validator for it, so nothing fails.
    expect(quick.validator.validateResponse(accepted, publish, 418).valid).toBe(true);
    // A problem+json body is never looked at (only application/json is).
    if (mediaTypeOf(declared(ARTICLE.method, ARTICLE.path, 404)) === 'application/problem+json') {
      expect(quick.validator.validateResponse({ status: 'nonsense' }, article, 404).valid).toBe(
        true,
      );
    }
  });

  it('express-openapi-validator alone checks status and body, but not the content type', () => {
    const { validator: eov, responseDocument } = createEovResponseValidator(document);
    const responses = (
      responseDocument.paths[PUBLISH.path]?.post as { responses: Record<string, ResponseObject> }
    ).responses;
    const validators = eov.buildValidators(responses, 'proof');
    const run = (statusCode: number, body: unknown, accepts: string[]) => {
      try {
        eov._validate({ validators, body, statusCode, path: PUBLISH.path, accepts });
        return 'valid';
      } catch (error) {
        return (error as EovError).message;
      }
    };
    expect(run(202, accepted, ['application/json'])).toBe('valid');
    expect(run(418, accepted, ['application/json'])).toMatch(
      /no schema defined for status code '418'/,
    );
    expect(run(202, { ...accepted, id: 'x' }, ['application/json'])).not.toBe('valid');
    // Served as HTML, the body is still checked against the JSON schema and passes: the
    // content type itself is never compared with the document (validator.ts does it).
    expect(run(202, accepted, ['text/html'])).toBe('valid');
  });
});
