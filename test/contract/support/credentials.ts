// Real credentials of every kind the API knows, so that fuzzed requests reach the success
// paths as well as the refusals: a publisher's bearer token and scoped keys, an operator's
// token and session cookie, and the near misses (revoked, expired, deleted, forged).
import { SCOPES, type Scope } from '@ingest/events';
import { createHmac, randomUUID } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { createKey, registerAccount, type RegisteredAccount } from '../../support/accounts.js';
import { registerAdmin } from '../../support/admin.js';
import type { TestApi } from '../../support/test-api.js';

export interface Credentials {
  publisher: RegisteredAccount;
  /** Another publisher: its resources must look absent to the first. */
  other: RegisteredAccount;
  admin: RegisteredAccount;
  /** `ingest_admin=<token>` as the operators' login set it. */
  adminCookie: string;
  /** A key of the publisher's holding one scope, for each scope. */
  keys: Record<Scope, string>;
  revokedKey: string;
  expiredKey: string;
  /** Bearer tokens that must all be refused with 401. */
  refusedTokens: Record<string, string>;
  /** Readable names of the secrets above, for printing a failing request. */
  labels: Map<string, string>;
}

const b64url = (value: unknown): string =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** A JWT signed as the API signs (HS256 by default), with whatever claims a forger likes. */
export function signJwt(
  secret: string,
  payload: Record<string, unknown>,
  header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' },
): string {
  const unsigned = `${b64url(header)}.${b64url(payload)}`;
  const alg = header.alg;
  if (alg === 'none') return `${unsigned}.`;
  const hash = alg === 'HS512' ? 'sha512' : alg === 'HS384' ? 'sha384' : 'sha256';
  return `${unsigned}.${createHmac(hash, secret).update(unsigned).digest('base64url')}`;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const base62 = (value: bigint, width: number): string => {
  let text = '';
  for (let rest = value; rest > 0n; rest /= 62n) text = BASE62[Number(rest % 62n)] + text;
  return text.padStart(width, '0');
};

/** An `sk-` key whose checksum holds (README, "API keys") but that no account owns. */
export function wellFormedUnknownKey(): string {
  const secret = Array.from({ length: 43 }, () => BASE62[Math.floor(Math.random() * 62)]).join('');
  return `sk-${secret}${base62(BigInt(crc32(secret)), 6)}`;
}

/** The claims a login's token carries, for an account id. */
const claims = (sub: unknown, now: number) => ({
  sub,
  iss: 'ingest',
  aud: 'ingest-api',
  iat: now,
  exp: now + 3600,
});

function forgedTokens(secret: string, publisherId: string): Record<string, string> {
  const now = Math.floor(Date.now() / 1000);
  const valid = claims(publisherId, now);
  const without = (key: string) =>
    Object.fromEntries(Object.entries(valid).filter(([k]) => k !== key));
  return {
    'token whose sub is not a UUID': signJwt(secret, claims('not-a-uuid', now)),
    'token whose sub is a number': signJwt(secret, claims(42, now)),
    'token whose sub is an empty string': signJwt(secret, claims('', now)),
    'token whose sub has a NUL': signJwt(secret, claims(`${publisherId}\u0000`, now)),
    'token of an account that never existed': signJwt(secret, claims(randomUUID(), now)),
    'expired token': signJwt(secret, { ...valid, iat: now - 7200, exp: now - 3600 }),
    'token without exp': signJwt(secret, without('exp')),
    'token without sub': signJwt(secret, without('sub')),
    'token for another audience': signJwt(secret, { ...valid, aud: 'someone-else' }),
    'token from another issuer': signJwt(secret, { ...valid, iss: 'evil' }),
    'token not valid before next year': signJwt(secret, { ...valid, nbf: now + 31_536_000 }),
    'token with alg none': signJwt(secret, valid, { alg: 'none', typ: 'JWT' }),
    'token signed HS512 with our secret': signJwt(secret, valid, { alg: 'HS512', typ: 'JWT' }),
    'token signed with another secret': signJwt(`${secret}x`, valid),
    'token with a bad signature': `${signJwt(secret, valid).slice(0, -4)}AAAA`,
    'token whose payload is not JSON': `${b64url({ alg: 'HS256' })}.${b64url('not json')}.x`,
  };
}

/** Registers the accounts and keys of one test file; all of them in its test domain. */
export async function setUpCredentials(api: TestApi): Promise<Credentials> {
  const [publisher, other, admin, deleted] = await Promise.all([
    registerAccount(api),
    registerAccount(api),
    registerAdmin(api),
    registerAccount(api),
  ]);
  const login = await api.app.inject({
    method: 'POST',
    url: '/api/admin/session',
    payload: { email: admin.email, password: admin.password },
  });
  const cookie = [login.headers['set-cookie']].flat().find((c) => c?.startsWith('ingest_admin='));
  if (cookie === undefined) throw new Error(`operator login set no cookie: ${login.body}`);
  const adminCookie = cookie.split(';')[0] as string;

  const keys = Object.fromEntries(
    await Promise.all(
      SCOPES.map(async (scope) => [
        scope,
        (await createKey(api, publisher, { name: scope, scopes: [scope] })).key,
      ]),
    ),
  ) as Record<Scope, string>;
  const revoked = await createKey(api, publisher, { name: 'revoked', scopes: [...SCOPES] });
  await api.app.inject({
    method: 'DELETE',
    url: `/api/webhooks/api-keys/${revoked.id}`,
    headers: { authorization: `Bearer ${publisher.token}` },
  });
  const expired = await createKey(api, publisher, { name: 'expired', scopes: [...SCOPES] });
  await api.deps.db.prisma.apiKey.update({
    where: { id: expired.id },
    data: { expiresAt: new Date(Date.now() - 60_000) },
  });
  await api.deps.db.prisma.account.delete({ where: { id: deleted.id } });

  const refusedTokens = {
    ...forgedTokens(api.deps.config.auth.jwtSecret, publisher.id),
    'token of a deleted account': deleted.token,
  };
  const labels = new Map<string, string>([
    [publisher.token, "<publisher's token>"],
    [other.token, "<other publisher's token>"],
    [admin.token, "<operator's token>"],
    [adminCookie, "ingest_admin=<operator's session>"],
    [revoked.key, '<revoked key>'],
    [expired.key, '<expired key>'],
    ...Object.entries(keys).map(([scope, key]): [string, string] => [key, `<${scope} key>`]),
    ...Object.entries(refusedTokens).map(([name, token]): [string, string] => [token, `<${name}>`]),
  ]);
  return {
    publisher,
    other,
    admin,
    adminCookie,
    keys,
    revokedKey: revoked.key,
    expiredKey: expired.key,
    refusedTokens,
    labels,
  };
}

/** `text` with every known secret in it replaced by its label. */
export function redact(text: string, labels: Map<string, string>): string {
  let result = text;
  for (const [secret, label] of labels) result = result.replaceAll(secret, label);
  return result;
}
