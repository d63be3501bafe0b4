import { Writable } from 'node:stream';
import { expect, it } from 'vitest';
import { createLogger } from './create-logger.js';

it('redacts credentials wherever they are passed', () => {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const log = createLogger({ level: 'info', name: 'test', destination });
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
