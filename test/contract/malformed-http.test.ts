// Requests only a real socket carries, which Node's HTTP parser sees before Fastify does:
// headers too large (431), NUL or a bare CR in a header, a malformed request line,
// conflicting lengths. inject() cannot send them; whatever answers them (Node, or
// Fastify's clientErrorHandler) must still never be a 5xx, and refuse with a problem.
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { fuzz, PROPERTY_RUNS, timeoutFor, type Transport } from './support/fuzz.js';
import type { Case } from './support/operation-requests.js';
import { rawExchange } from './support/raw-http.js';
import { FuzzRequest } from './support/requests.js';
import { startContract, type ContractSetup } from './support/setup.js';

let setup: ContractSetup;
let port: number;
beforeAll(async () => {
  setup = await startContract();
  await setup.api.app.listen({ host: '127.0.0.1', port: 0 });
  port = (setup.api.app.server.address() as AddressInfo).port;
});
afterAll(() => setup?.api.close());

describe("over a real socket, what Node's HTTP parser refuses", () => {
  // A small, finite set of malformations, each with a few variations: RAW_RUNS covers each
  // many times over, where PROPERTY_RUNS would only repeat them.
  const RAW_RUNS = Math.min(PROPERTY_RUNS, 200);
  const line = (method: string, path: string, version = 'HTTP/1.1') =>
    `${method} ${path} ${version}\r\n`;
  const malformed = (path: string, size: number): Record<string, string | Buffer> => ({
    'headers too large': `${line('GET', path)}Host: x\r\nX-Big: ${'a'.repeat(size)}\r\n\r\n`,
    'URL too long': `${line('GET', `${path}?q=${'a'.repeat(size)}`)}Host: x\r\n\r\n`,
    'too many headers': `${line('GET', path)}Host: x\r\n${'X-A: 1\r\n'.repeat(Math.ceil(size / 8))}\r\n`,
    'NUL in a header': `${line('GET', path)}Host: x\r\nX-A: a\u0000b\r\n\r\n`,
    'bare CR in a header': `${line('GET', path)}Host: x\r\nX-A: a\rb\r\n\r\n`,
    'space in a header name': `${line('GET', path)}Host: x\r\nBad Header: 1\r\n\r\n`,
    'folded header': `${line('GET', path)}Host: x\r\nX-A: a\r\n b\r\n\r\n`,
    'byte 0xff in the path': Buffer.concat([
      Buffer.from(`GET ${path}`),
      Buffer.from([0xff]),
      Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
    ]),
    'space in the path': `GET ${path} x HTTP/1.1\r\nHost: x\r\n\r\n`,
    'unknown HTTP version': `${line('GET', path, 'HTTP/1.x')}Host: x\r\n\r\n`,
    'HTTP/2 preface': 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
    'bad method': `${line('G@T', path)}Host: x\r\n\r\n`,
    'two Content-Lengths': `${line('POST', path)}Host: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
    'Content-Length and chunked': `${line('POST', path)}Host: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
    'bad chunk size': `${line('POST', path)}Host: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    'negative Content-Length': `${line('POST', path)}Host: x\r\nContent-Type: application/json\r\nContent-Length: -1\r\n\r\n`,
    'no Host': `${line('GET', path)}Connection: close\r\n\r\n`,
    'absolute-form target': `${line('GET', `http://evil.example${path}`)}Host: x\r\nConnection: close\r\n\r\n`,
  });
  const names = Object.keys(malformed('/', 1));

  it(
    'never answers with a 5xx, and refuses with a problem document',
    async () => {
      const cases: fc.Arbitrary<Case> = fc
        .record({
          kind: fc.constantFrom(...names),
          path: fc.constantFrom(
            '/api/articles',
            '/api/webhooks/content',
            '/dashboard/',
            '/health/live',
            '/nope',
          ),
          size: fc.integer({ min: 16_400, max: 70_000 }),
        })
        .map(({ kind, path, size }) => {
          const sent = malformed(path, size)[kind] as string | Buffer;
          // Bytes as latin1 text: one character a byte, printed readably when it fails.
          const text = typeof sent === 'string' ? sent : sent.toString('latin1');
          return {
            request: new FuzzRequest('RAW', kind, '', {}, text),
            target: { kind: 'malformed' },
          };
        });
      const overSocket: Transport = (_context, request) =>
        rawExchange(port, Buffer.from(request.body as string, 'latin1'));
      await fuzz('malformed HTTP over a socket', setup, cases, RAW_RUNS, { transport: overSocket });
    },
    timeoutFor(RAW_RUNS, 100),
  );
});
