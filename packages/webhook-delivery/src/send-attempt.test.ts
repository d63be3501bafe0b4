import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendAttempt, type AttemptLimits, type Resolver } from './send-attempt.js';
import { allowedPrivateOf, type TargetPolicy } from './target-policy.js';

/** A receiver on loopback whose answer each test sets; it records what it was sent. */
let server: Server;
let port: number;
let answer: (request: IncomingMessage, response: ServerResponse) => void;
const received: Array<{ headers: IncomingMessage['headers']; body: string; path?: string }> = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
        ...(request.url === undefined ? {} : { path: request.url }),
      });
      answer(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);

const local: TargetPolicy = {
  allowHttp: true,
  allowedPrivate: allowedPrivateOf(['127.0.0.1', 'localhost']),
};
const strict: TargetPolicy = { allowHttp: true, allowedPrivate: allowedPrivateOf([]) };
const limits: AttemptLimits = { timeoutMs: 2_000, maxResponseBytes: 64 * 1024 };
const send = (url: string, policy = local, within = limits, resolver?: Resolver) =>
  sendAttempt(
    {
      url,
      body: '{"type":"ping"}',
      headers: { 'content-type': 'application/json', 'x-test': '1' },
    },
    policy,
    within,
    resolver,
  );

describe('sendAttempt', () => {
  it('POSTs the body with the headers and reads the answer', async () => {
    answer = (_request, response) => response.writeHead(204).end();
    received.length = 0;
    const outcome = await send(`http://127.0.0.1:${port}/hooks?x=1`);
    expect(outcome).toMatchObject({ kind: 'answered', status: 204, body: '', truncated: false });
    expect(received).toEqual([
      {
        headers: expect.objectContaining({
          'content-type': 'application/json',
          'x-test': '1',
          'content-length': '15',
        }),
        body: '{"type":"ping"}',
        path: '/hooks?x=1',
      },
    ]);
  });

  it('does not follow a redirect: the 3xx is the answer', async () => {
    answer = (_request, response) =>
      response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
    received.length = 0;
    expect(await send(`http://127.0.0.1:${port}/`)).toMatchObject({
      kind: 'answered',
      status: 302,
    });
    expect(received).toHaveLength(1);
  });

  it('reads an answer up to the cap and no further', async () => {
    const big = 'x'.repeat(200 * 1024);
    answer = (_request, response) => response.writeHead(500).end(big);
    const outcome = await send(`http://127.0.0.1:${port}/`, local, {
      ...limits,
      maxResponseBytes: 1024,
    });
    expect(outcome).toMatchObject({ kind: 'answered', status: 500, truncated: true });
    expect(outcome.kind === 'answered' && outcome.body).toBe('x'.repeat(1024));
  });

  it('gives up on a receiver that does not answer in time', async () => {
    answer = (_request, response) => setTimeout(() => response.writeHead(200).end(), 1_500);
    const outcome = await send(`http://127.0.0.1:${port}/`, local, { ...limits, timeoutMs: 300 });
    expect(outcome).toMatchObject({ kind: 'failed', reason: 'no answer within 300 ms' });
  });

  it('fails, without throwing, when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await send(`http://127.0.0.1:${closedPort}/`)).toMatchObject({
      kind: 'failed',
      reason: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it('refuses a literal private address before sending anything', async () => {
    received.length = 0;
    expect(await send(`http://127.0.0.1:${port}/`, strict)).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('loopback'),
    });
    expect(await send(`http://[::ffff:127.0.0.1]:${port}/`, strict)).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('IPv4-mapped'),
    });
    expect(received).toHaveLength(0);
  });

  it('checks the address a name resolves to on every attempt, so a rebinding is caught', async () => {
    answer = (_request, response) => response.writeHead(200).end('ok');
    received.length = 0;
    // rebind.test resolves to the receiver first, then to a private address.
    const answers = [['127.0.0.1'], ['10.0.0.7', '127.0.0.2']];
    const resolver: Resolver = (_hostname, _options, callback) => {
      const next = answers.shift() ?? [];
      callback(
        null,
        next.map((address) => ({ address, family: 4 })),
      );
    };
    const policy: TargetPolicy = {
      allowHttp: true,
      allowedPrivate: allowedPrivateOf(['127.0.0.1']),
    };
    const url = `http://rebind.test:${port}/`;
    expect(await send(url, policy, limits, resolver)).toMatchObject({
      kind: 'answered',
      status: 200,
    });
    expect(await send(url, policy, limits, resolver)).toMatchObject({
      kind: 'refused',
      reason:
        'rebind.test resolves only to refused addresses: 10.0.0.7 is a private address; 127.0.0.2 is a loopback address',
    });
    expect(received).toHaveLength(1);
  });

  it('refuses a name that resolves to loopback, unless the deployment allows the name', async () => {
    answer = (_request, response) => response.writeHead(200).end('ok');
    received.length = 0;
    expect(await send(`http://localhost:${port}/`, strict)).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('localhost'),
    });
    expect(received).toHaveLength(0);
    expect(await send(`http://localhost:${port}/`, local)).toMatchObject({
      kind: 'answered',
      body: 'ok',
    });
  });

  it('reads the wait a 429 or 503 asks for in Retry-After, in seconds or as a date', async () => {
    const answerWith = async (status: number, retryAfter: string) => {
      answer = (_request, response) =>
        response.writeHead(status, { 'retry-after': retryAfter }).end();
      return send(`http://127.0.0.1:${port}/`);
    };
    expect(await answerWith(429, '30')).toMatchObject({ status: 429, retryAfterMs: 30_000 });
    expect(await answerWith(503, ' 0 ')).toMatchObject({ status: 503, retryAfterMs: 0 });

    // An HTTP date says whole seconds: up to one less than asked, less the exchange's time.
    const inTwoMinutes = new Date(Date.now() + 120_000);
    const dated = await answerWith(503, inTwoMinutes.toUTCString());
    const datedMs = dated.kind === 'answered' ? dated.retryAfterMs : undefined;
    expect(datedMs).toBeGreaterThan(115_000);
    expect(datedMs).toBeLessThanOrEqual(120_000);
    // asctime carries no zone, and means GMT.
    const asctime = inTwoMinutes
      .toUTCString()
      .replace(
        /^(\w+), (\d+) (\w+) (\d+) ([\d:]+) GMT$/,
        (_all, day: string, date: string, month: string, year: string, clock: string) =>
          `${day} ${month} ${date.padStart(2, ' ')} ${clock} ${year}`,
      );
    const fromAsctime = await answerWith(429, asctime);
    const asctimeMs = fromAsctime.kind === 'answered' ? fromAsctime.retryAfterMs : undefined;
    expect(Math.abs((asctimeMs ?? Infinity) - (datedMs ?? 0))).toBeLessThan(1_000);

    expect(await answerWith(429, String(7 * 24 * 3600))).toMatchObject({
      retryAfterMs: 24 * 3600 * 1000,
    });
  });

  it('ignores a Retry-After that is invalid, past, or on another status', async () => {
    const past = new Date(Date.now() - 60_000).toUTCString();
    const cases: Array<[number, string]> = [
      [429, '-5'],
      [429, '1.5'],
      [503, 'soon'],
      [503, past],
      [500, '30'],
      [200, '30'],
    ];
    for (const [status, retryAfter] of cases) {
      answer = (_request, response) =>
        response.writeHead(status, { 'retry-after': retryAfter }).end();
      const outcome = await send(`http://127.0.0.1:${port}/`);
      expect(outcome).toMatchObject({ kind: 'answered', status });
      expect(outcome).not.toHaveProperty('retryAfterMs');
    }
    answer = (_request, response) => response.writeHead(429).end();
    expect(await send(`http://127.0.0.1:${port}/`)).not.toHaveProperty('retryAfterMs');
  });

  it('refuses plain http unless the deployment allows it', async () => {
    const httpsOnly: TargetPolicy = { allowHttp: false, allowedPrivate: local.allowedPrivate };
    expect(await send(`http://127.0.0.1:${port}/`, httpsOnly)).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('https'),
    });
  });
});
