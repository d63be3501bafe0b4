import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateSigningSecret } from './secrets.js';
import { signDelivery } from './sign-delivery.js';

describe('signDelivery', () => {
  const body = JSON.stringify({ type: 'article.created', data: { slug: 'a' } });
  const message = { id: 'msg_01a20000000070008000000000000000', body };

  it('signs so that the reference verifier accepts it, with every secret of an overlap', () => {
    const [current, previous] = [generateSigningSecret(), generateSigningSecret()];
    const headers = signDelivery(message, [current, previous]);
    expect(headers['webhook-id']).toBe(message.id);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [current, previous]) {
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    }
    expect(() => new Webhook(generateSigningSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow();
  });

  it("gives the scheme's published signature for its fixed vector", () => {
    const headers = signDelivery(
      { id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', body: '{"test": 2432232314}' },
      ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      new Date(1614265330 * 1000),
    );
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });
});
