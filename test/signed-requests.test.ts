// Signed requests (Standard Webhooks) on POST /api/webhooks/content: every API key has a
// signing secret; a signature sent is always checked, and a key may require one. Signed
// here by the standardwebhooks package itself, as a publisher would.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { articleData, uniqueSlug } from './support/content.js';
import { expectProblem } from './support/problems.js';
import { startTestApi, type TestApi } from './support/test-api.js';

let api: TestApi;
let account: RegisteredAccount;
beforeAll(async () => {
  api = await startTestApi({ SIGNING_SECRET_OVERLAP_HOURS: '24' });
  account = await registerAccount(api);
});
afterAll(() => api.close());

let sequence = 0;
const newId = () => `msg_${Date.now()}_${(sequence += 1)}`;

/** The body as sent, and the Standard Webhooks headers signing it with `secret`. */
function signedCall(secret: string, body: object, options: { id?: string; at?: Date } = {}) {
  const payload = JSON.stringify(body);
  const id = options.id ?? newId();
  const at = options.at ?? new Date();
  return {
    payload,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, at, payload),
    },
  };
}

const publish = (key: string, payload: string, headers: Record<string, string> = {}) =>
  api.app.inject({
    method: 'POST',
    url: '/api/webhooks/content',
    headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers },
    payload,
  });

const createBody = () => ({ event: 'article.create', data: articleData({ slug: uniqueSlug() }) });

/** The rejected rows the account's key left, newest first. */
const rejectedOf = (apiKeyId: string) =>
  api.deps.db.prisma.webhookLog.findMany({
    where: { apiKeyId, status: 'rejected' },
    orderBy: { receivedAt: 'desc' },
  });

describe('signing secrets', () => {
  it('are given once with each key, never listed, and never in the key list', async () => {
    const created = await createKey(api, account);
    expect(created.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const list = await api.app.inject({
      method: 'GET',
      url: '/api/webhooks/api-keys',
      headers: bearer(account.token),
    });
    expect(list.body).not.toContain(created.signingSecret);
    expect(list.json().items[0]).toMatchObject({ id: created.id, requireSignature: false });
  });
});

describe('a signed call', () => {
  it('is accepted with the key secret, and its webhook-id makes a resend the same event', async () => {
    const { id, key, signingSecret } = await createKey(api, account);
    const call = signedCall(signingSecret, createBody());
    const first = await publish(key, call.payload, call.headers);
    expect(first.statusCode).toBe(202);
    const again = await publish(key, call.payload, call.headers);
    expect(again.statusCode).toBe(202);
    expect(again.json().id).toBe(first.json().id);
    expect(again.headers['idempotent-replayed']).toBe('true');

    // The same webhook-id with another body, signed correctly: not a replay, a conflict.
    const other = signedCall(signingSecret, createBody(), { id: call.headers['webhook-id'] });
    expectProblem(
      await publish(key, other.payload, other.headers),
      422,
      'IDEMPOTENCY_KEY_MISMATCH',
    );
    expect(await api.deps.db.prisma.webhookLog.count({ where: { apiKeyId: id } })).toBe(1);
  });

  it('cannot be made new by an Idempotency-Key beside it', async () => {
    const { key, signingSecret } = await createKey(api, account);
    const call = signedCall(signingSecret, createBody());
    expectProblem(
      await publish(key, call.payload, { ...call.headers, 'idempotency-key': 'another' }),
      400,
      'VALIDATION_FAILED',
    );
    const same = { ...call.headers, 'idempotency-key': call.headers['webhook-id'] };
    expect((await publish(key, call.payload, same)).statusCode).toBe(202);
  });

  it('is refused, and recorded as rejected, when the signature is wrong or old', async () => {
    const { id, key, signingSecret } = await createKey(api, account);
    const body = createBody();
    const call = signedCall(signingSecret, body);

    const tampered = JSON.stringify({ ...body, data: { ...body.data, title: 'Changed' } });
    const invalid = expectProblem(
      await publish(key, tampered, call.headers),
      401,
      'SIGNATURE_INVALID',
    );
    const byOtherSecret = signedCall((await createKey(api, account)).signingSecret, body);
    expectProblem(
      await publish(key, byOtherSecret.payload, byOtherSecret.headers),
      401,
      'SIGNATURE_INVALID',
    );
    const old = signedCall(signingSecret, body, { at: new Date(Date.now() - 6 * 60_000) });
    expectProblem(await publish(key, old.payload, old.headers), 401, 'SIGNATURE_EXPIRED');
    const { 'webhook-signature': _, ...unsignedHalf } = call.headers;
    expectProblem(await publish(key, call.payload, unsignedHalf), 401, 'SIGNATURE_INVALID');

    const rejected = await rejectedOf(id);
    expect(rejected.map((row) => (row.error as { code: string }).code)).toEqual([
      'SIGNATURE_INVALID',
      'SIGNATURE_EXPIRED',
      'SIGNATURE_INVALID',
      'SIGNATURE_INVALID',
    ]);
    expect(rejected.at(-1)?.id).toBe(invalid.eventId);
    // The secret is never recorded, nor answered.
    const recorded = JSON.stringify(rejected, (_key, value: unknown) =>
      typeof value === 'bigint' ? value.toString() : value,
    );
    expect(recorded).not.toContain(signingSecret);
  });
});

describe('a key that requires signatures', () => {
  it('refuses unsigned calls, at creation or once switched on, and takes signed ones', async () => {
    const required = await createKey(api, account, {
      name: 'signed only',
      scopes: ['content:create'],
      requireSignature: true,
    });
    expectProblem(
      await publish(required.key, JSON.stringify(createBody())),
      401,
      'SIGNATURE_REQUIRED',
    );
    const call = signedCall(required.signingSecret, createBody());
    expect((await publish(required.key, call.payload, call.headers)).statusCode).toBe(202);

    const later = await createKey(api, account);
    expect((await publish(later.key, JSON.stringify(createBody()))).statusCode).toBe(202);
    const patched = await api.app.inject({
      method: 'PATCH',
      url: `/api/webhooks/api-keys/${later.id}`,
      headers: bearer(account.token),
      payload: { requireSignature: true },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ id: later.id, requireSignature: true });
    expect(patched.body).not.toContain(later.signingSecret);
    expectProblem(
      await publish(later.key, JSON.stringify(createBody())),
      401,
      'SIGNATURE_REQUIRED',
    );
    expect((await rejectedOf(later.id)).map((row) => (row.error as { code: string }).code)).toEqual(
      ['SIGNATURE_REQUIRED'],
    );
  });

  it("is another account's business: its key answers 404 to a stranger", async () => {
    const { id } = await createKey(api, account);
    const stranger = await registerAccount(api);
    for (const [method, url, payload] of [
      ['PATCH', `/api/webhooks/api-keys/${id}`, { requireSignature: true }],
      ['POST', `/api/webhooks/api-keys/${id}/signing-secret`, undefined],
    ] as const) {
      expectProblem(
        await api.app.inject({
          method,
          url,
          headers: bearer(stranger.token),
          ...(payload ? { payload } : {}),
        }),
        404,
        'NOT_FOUND',
      );
    }
  });
});

describe('rotating a signing secret', () => {
  it('shows the new secret once; the old one verifies until the overlap ends', async () => {
    const { id, key, signingSecret: oldSecret } = await createKey(api, account);
    const before = Date.now();
    const rotated = await api.app.inject({
      method: 'POST',
      url: `/api/webhooks/api-keys/${id}/signing-secret`,
      headers: bearer(account.token),
    });
    const after = Date.now();
    expect(rotated.statusCode).toBe(200);
    const { signingSecret: newSecret, previousSecretExpiresAt } = rotated.json();
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    // 24 hours from the moment of the rotation, which lies between before and after.
    const expiresAt = Date.parse(previousSecretExpiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 24 * 3_600_000);
    expect(expiresAt).toBeLessThanOrEqual(after + 24 * 3_600_000);

    for (const secret of [newSecret, oldSecret]) {
      const call = signedCall(secret, createBody());
      expect((await publish(key, call.payload, call.headers)).statusCode).toBe(202);
    }

    // The overlap over (as if a day had passed): the old secret no longer verifies.
    await api.deps.db.prisma.apiKey.update({
      where: { id },
      data: { previousSecretExpiresAt: new Date(Date.now() - 1) },
    });
    api.deps.apiKeys.forget(
      (await api.deps.db.prisma.apiKey.findUniqueOrThrow({ where: { id } })).keyHash,
    );
    const stale = signedCall(oldSecret, createBody());
    expectProblem(await publish(key, stale.payload, stale.headers), 401, 'SIGNATURE_INVALID');
    const fresh = signedCall(newSecret, createBody());
    expect((await publish(key, fresh.payload, fresh.headers)).statusCode).toBe(202);
  });
});
