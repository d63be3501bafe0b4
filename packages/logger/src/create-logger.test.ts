import { Writable } from 'node:stream';
import { expect, it } from 'vitest';
import { createLogger } from './create-logger.js';

function capturedLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { log: createLogger({ level: 'info', name: 'test', destination }), lines };
}

it('redacts credentials wherever they are passed', () => {
  const { log, lines } = capturedLogger();
  log.info(
    { password: 'p4ss', account: { passwordHash: 'h4sh' }, token: 't0k', apiKey: 'sk-1' },
    'a',
  );
  log.info(
    { req: { headers: { authorization: 'Bearer abc', 'x-api-key': 'sk-2', cookie: 'c=1' } } },
    'b',
  );
  log.info({ apiKey: { signingSecret: 'whsec_1', previousSigningSecret: 'whsec_2' } }, 'c');
  const text = lines.join('');
  for (const secret of ['p4ss', 'h4sh', 't0k', 'sk-1', 'Bearer abc', 'sk-2', 'c=1', 'whsec_']) {
    expect(text).not.toContain(secret);
  }
  expect(text.match(/\[redacted\]/g)).toHaveLength(8);
});

it('keeps a URL but the values of its credential parameters', () => {
  const { log, lines } = capturedLogger();
  log.info({ url: '/api/items?token=t0k&page=2' }, 'a');
  // Fastify's own request serializer, and a webhook endpoint's URL.
  log.info({ req: { method: 'GET', url: '/api/items?API_KEY=sk-1' } }, 'b');
  log.info({ endpoint: { url: new URL('https://hooks.example.com/in?access_token=a1') } }, 'c');
  const text = lines.join('');
  for (const secret of ['t0k', 'sk-1', 'a1']) expect(text).not.toContain(secret);
  expect(text).toContain('"url":"/api/items?token=[redacted]&page=2"');
  expect(text).toContain('"url":"/api/items?API_KEY=[redacted]"');
  expect(text).toContain('"url":"https://hooks.example.com/in?access_token=[redacted]"');
});
