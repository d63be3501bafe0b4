import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateSigningSecret } from './secrets.js';
import { checkRequestSignature } from './verify-request.js';

// The scheme's published test vector (standard-webhooks, spec and libraries).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: '1614265330',
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const atVector = new Date(Number(VECTOR.timestamp) * 1000);
const vectorHeaders = {
  'webhook-id': VECTOR.id,
  'webhook-timestamp': VECTOR.timestamp,
  'webhook-signature': VECTOR.signature,
};

/** Headers made by the standardwebhooks package's own signer. */
function signed(secret: string, body: string, id = 'msg_1', at = new Date()) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}

describe('checkRequestSignature', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('accepts the scheme published test vector', () => {
    // The vector was signed in 2021; the package checks the timestamp against the clock.
    vi.useFakeTimers({ now: atVector });
    expect(
      checkRequestSignature({ headers: vectorHeaders, body: VECTOR.body }, [VECTOR.secret], {
        required: true,
        now: atVector,
      }),
    ).toEqual({ signed: true, webhookId: VECTOR.id });
  });

  it('accepts what the standardwebhooks package signs, with a secret of ours', () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = Buffer.from('{"event":"article.create","data":{"title":"Hello"}}');
    expect(
      checkRequestSignature({ headers: signed(secret, body.toString()), body }, [secret], {
        required: false,
      }),
    ).toEqual({ signed: true, webhookId: 'msg_1' });
  });

  it('refuses a changed body, id or timestamp, and another secret', () => {
    vi.useFakeTimers({ now: atVector });
    const check = (headers: Record<string, string>, body = VECTOR.body, secret = VECTOR.secret) =>
      checkRequestSignature({ headers, body }, [secret], { required: false, now: atVector });
    expect(check(vectorHeaders, '{"test": 2432232315}')).toMatchObject({ refused: 'invalid' });
    expect(check({ ...vectorHeaders, 'webhook-id': 'msg_other' })).toMatchObject({
      refused: 'invalid',
    });
    expect(check({ ...vectorHeaders, 'webhook-timestamp': '1614265331' })).toMatchObject({
      refused: 'invalid',
    });
    expect(check(vectorHeaders, VECTOR.body, generateSigningSecret())).toMatchObject({
      refused: 'invalid',
    });
  });

  it('takes any of several signatures, and any of the key secrets (rotation)', () => {
    const [oldSecret, newSecret] = [generateSigningSecret(), generateSigningSecret()];
    const body = '{"a":1}';
    const byOld = signed(oldSecret, body);
    const both = {
      ...byOld,
      'webhook-signature': `v1,${'A'.repeat(43)}= ${byOld['webhook-signature']}`,
    };
    expect(
      checkRequestSignature({ headers: both, body }, [newSecret, oldSecret], { required: true }),
    ).toEqual({ signed: true, webhookId: 'msg_1' });
    expect(
      checkRequestSignature({ headers: byOld, body }, [newSecret], { required: true }),
    ).toMatchObject({ refused: 'invalid' });
  });

  it('tells an expired timestamp from a wrong signature, 5 minutes either way', () => {
    const secret = generateSigningSecret();
    const now = new Date();
    const at = (offsetSeconds: number) => new Date(now.getTime() + offsetSeconds * 1000);
    const check = (signedAt: Date) =>
      checkRequestSignature(
        { headers: signed(secret, '{}', 'msg_1', signedAt), body: '{}' },
        [secret],
        {
          required: false,
          now,
        },
      );
    expect(check(at(-299))).toMatchObject({ signed: true });
    expect(check(at(299))).toMatchObject({ signed: true });
    expect(check(at(-301))).toMatchObject({ refused: 'expired' });
    expect(check(at(301))).toMatchObject({ refused: 'expired' });
  });

  it('passes an unsigned call unless signatures are required; refuses a half-signed one', () => {
    const check = (headers: Record<string, string>, required: boolean) =>
      checkRequestSignature({ headers, body: '{}' }, [VECTOR.secret], { required });
    expect(check({}, false)).toEqual({ signed: false });
    expect(check({}, true)).toMatchObject({ refused: 'required' });
    expect(check({ 'webhook-id': 'msg_1' }, false)).toMatchObject({ refused: 'invalid' });
    expect(check({ ...vectorHeaders, 'webhook-timestamp': 'soon' }, false)).toMatchObject({
      refused: 'invalid',
    });
  });
});
