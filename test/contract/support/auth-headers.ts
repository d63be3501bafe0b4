// Credentials on a request, chosen from the operation's `security` in the document: mostly
// the right one (so the operation's success path runs), else a wrong, refused, forged or
// garbage one, or one meant for another scheme.
import { SCOPES } from '@ingest/events';
import fc from 'fast-check';
import { headerSafeNaughtyString } from '../../properties/support/naughty-strings.js';
import { originHeader } from './arbitraries.js';
import { wellFormedUnknownKey, type Credentials } from './credentials.js';

type Scheme = 'bearerAuth' | 'apiKeyAuth' | 'adminSession';
const SCHEMES: Scheme[] = ['bearerAuth', 'apiKeyAuth', 'adminSession'];

function bearer(credentials: Credentials, forOperator: boolean): fc.Arbitrary<string> {
  const { publisher, other, admin, refusedTokens } = credentials;
  const own = forOperator ? admin.token : publisher.token;
  return fc.oneof(
    { weight: 30, arbitrary: fc.constant(`Bearer ${own}`) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(publisher.token, other.token, admin.token)
        .map((t) => `Bearer ${t}`),
    },
    {
      weight: 4,
      arbitrary: fc.constantFrom(...Object.values(refusedTokens)).map((t) => `Bearer ${t}`),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        `bearer ${own}`,
        `Bearer  ${own}`,
        own,
        `Basic ${own}`,
        `Bearer ${own}, Bearer ${other.token}`,
        'Bearer',
        'Bearer ',
        'Basic dXNlcjpwYXNz',
      ),
    },
    { weight: 1, arbitrary: headerSafeNaughtyString.map((value) => `Bearer ${value}`) },
  );
}

function apiKey(credentials: Credentials): fc.Arbitrary<string> {
  const { keys, revokedKey, expiredKey } = credentials;
  return fc.oneof(
    // The key that may do everything, mostly; the narrow ones for the 403s.
    { weight: 24, arbitrary: fc.constant(keys['content:create']) },
    { weight: 6, arbitrary: fc.constantFrom(...SCOPES.map((scope) => keys[scope])) },
    { weight: 2, arbitrary: fc.constantFrom(revokedKey, expiredKey) },
    // A fresh one each time: its checksum holds, so the API must look it up to refuse it.
    { weight: 1, arbitrary: fc.constant(null).map(() => wellFormedUnknownKey()) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'sk-',
        `${keys['content:create']} `,
        `${keys['content:create']}, ${keys['content:read']}`,
        keys['content:create'].toUpperCase(),
        `Bearer ${keys['content:create']}`,
      ),
    },
    { weight: 1, arbitrary: headerSafeNaughtyString },
  );
}

function sessionCookie(credentials: Credentials): fc.Arbitrary<string> {
  const { adminCookie, publisher, refusedTokens } = credentials;
  return fc.oneof(
    { weight: 30, arbitrary: fc.constant(adminCookie) },
    {
      weight: 3,
      arbitrary: fc
        .constantFrom(publisher.token, ...Object.values(refusedTokens))
        .map((token) => `ingest_admin=${token}`),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        `theme=dark; ${adminCookie}`,
        `${adminCookie}; ${adminCookie}x`,
        'ingest_admin=',
        'ingest_admin',
        'ingest_admin=%ff',
        '=; ;',
      ),
    },
    { weight: 1, arbitrary: headerSafeNaughtyString.map((value) => `ingest_admin=${value}`) },
  );
}

const schemesOf = (security: Record<string, string[]>[] | undefined): Scheme[] =>
  SCHEMES.filter((scheme) => security?.some((requirement) => scheme in requirement));

/** Mostly `arbitrary`, or nothing one time in `nothing`. */
const usually = <T>(arbitrary: fc.Arbitrary<T>, nothing: number) =>
  fc.oneof({ weight: nothing - 1, arbitrary }, { weight: 1, arbitrary: fc.constant(undefined) });
/** Nothing, mostly; `arbitrary` one time in `oneIn`. */
const rarely = <T>(arbitrary: fc.Arbitrary<T>, oneIn: number) =>
  fc.oneof({ weight: 1, arbitrary }, { weight: oneIn - 1, arbitrary: fc.constant(undefined) });

/**
 * Where a request carrying the operators' cookie says it comes from. A browser sends
 * Origin (or Sec-Fetch-Site) with every POST and DELETE: mostly this API's own origin
 * (inject()'s Host is `localhost:80`), so that cookie-authenticated requests can succeed;
 * else another site, none, or a spelling of ours that is not byte for byte the same.
 */
type Headers = Record<string, string>;
const browserOrigin: fc.Arbitrary<Headers | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Headers>({ origin: 'http://localhost:80' }) },
  { weight: 2, arbitrary: fc.constant<Headers>({ 'sec-fetch-site': 'same-origin' }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Headers>(
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'none' },
      { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' },
    ),
  },
  { weight: 3, arbitrary: originHeader.map((origin): Headers => ({ origin })) },
  { weight: 2, arbitrary: fc.constant(undefined) },
);

/**
 * Authorization, x-api-key, Cookie and Origin for an operation. One of its schemes is the
 * main one of a request (where an operation takes a key or a token, both get tried); the
 * others, and schemes the operation does not take, turn up now and then.
 */
export function authHeaders(
  credentials: Credentials,
  security: Record<string, string[]>[] | undefined,
): fc.Arbitrary<Record<string, string>> {
  const schemes = schemesOf(security);
  const forOperator = schemes.includes('adminSession');
  const values: Record<Scheme, fc.Arbitrary<string>> = {
    bearerAuth: bearer(credentials, forOperator),
    apiKeyAuth: apiKey(credentials),
    adminSession: sessionCookie(credentials),
  };
  const headerOf: Record<Scheme, string> = {
    bearerAuth: 'authorization',
    apiKeyAuth: 'x-api-key',
    adminSession: 'cookie',
  };
  const main: fc.Arbitrary<Scheme | undefined> =
    schemes.length === 0 ? fc.constant(undefined) : usually(fc.constantFrom(...schemes), 12);
  return main.chain((chosen) =>
    fc
      .record({
        bearerAuth: chosen === 'bearerAuth' ? values.bearerAuth : rarely(values.bearerAuth, 10),
        apiKeyAuth: chosen === 'apiKeyAuth' ? values.apiKeyAuth : rarely(values.apiKeyAuth, 10),
        adminSession:
          chosen === 'adminSession' ? values.adminSession : rarely(values.adminSession, 10),
        origin:
          chosen === 'adminSession'
            ? browserOrigin
            : rarely(
                originHeader.map((origin) => ({ origin })),
                20,
              ),
      })
      .map((picked) => {
        const headers: Record<string, string> = {};
        for (const scheme of SCHEMES) {
          const value = picked[scheme];
          if (value !== undefined) headers[headerOf[scheme]] = value;
        }
        if (picked.origin !== undefined) Object.assign(headers, picked.origin);
        return headers;
      }),
  );
}
