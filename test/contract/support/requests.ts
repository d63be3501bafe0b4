// A fuzzed request as it goes on the wire (path and query already percent-encoded, or
// deliberately not), sent through Fastify's inject, and printed readably when it fails.
import fc from 'fast-check';
import type { TestApi } from '../../support/test-api.js';
import { redact } from './credentials.js';
import type { ObservedResponse } from './validator.js';

const PRINT_LIMIT = 400;

let secretLabels = new Map<string, string>();

/** Names the secrets a printed request may hold (tokens, keys) instead of showing them. */
export function labelSecrets(labels: Map<string, string>): void {
  secretLabels = labels;
}

const cut = (text: string, limit = PRINT_LIMIT): string =>
  text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length} characters)`;

/** Control characters, lone surrogates and the like, visible in a failure message. */
const visible = (text: string): string =>
  JSON.stringify(text)
    .slice(1, -1)
    .replace(/[\ud800-\udfff]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16)}`);

export class FuzzRequest {
  constructor(
    readonly method: string,
    /** Raw path, as sent: `/api/articles/%ff`. */
    readonly path: string,
    /** Raw query string without `?`; empty for none. */
    readonly query: string,
    readonly headers: Record<string, string>,
    readonly body?: string | Buffer,
  ) {}

  get url(): string {
    return this.query === '' ? this.path : `${this.path}?${this.query}`;
  }

  describe(): string {
    const lines = [`${this.method} ${cut(visible(this.url), 600)}`];
    for (const [name, value] of Object.entries(this.headers)) {
      lines.push(`  ${name}: ${cut(visible(redact(value, secretLabels)), 200)}`);
    }
    if (this.body !== undefined) {
      // Bytes that are not UTF-8 are printed as U+FFFD, said so up front.
      const text =
        typeof this.body === 'string'
          ? visible(this.body)
          : `(not UTF-8, bad bytes as \ufffd) ${visible(this.body.toString('utf8'))}`;
      lines.push(`  body (${Buffer.byteLength(this.body)} bytes): ${cut(text)}`);
    }
    return lines.join('\n');
  }

  // fast-check prints counterexamples with this.
  [fc.toStringMethod](): string {
    return `\n${this.describe()}\n`;
  }
}

export async function send(api: TestApi, request: FuzzRequest): Promise<ObservedResponse> {
  const response = await api.app.inject({
    method: request.method as 'GET',
    url: request.url,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  // Node's HTTP server never writes the body of an answer to HEAD; inject() does not
  // emulate that, and would show bodies no client can receive.
  const body = request.method === 'HEAD' ? '' : response.body;
  return { statusCode: response.statusCode, headers: response.headers, body };
}

export function describeResponse(response: ObservedResponse): string {
  const headers = Object.entries(response.headers)
    .filter(([name]) => !['date', 'connection', 'content-length'].includes(name))
    .map(([name, value]) => `  ${name}: ${cut(String(value), 200)}`);
  return [`-> ${response.statusCode}`, ...headers, `  ${cut(visible(response.body))}`].join('\n');
}
