import { AppError, MINUTE_MS } from '@ingest/contracts';
import { LRUCache } from 'lru-cache';
import type { ApiClients } from '../clients.js';
import { hashApiKey, isWellFormedApiKey } from './api-key-format.js';

type Deps = Pick<ApiClients, 'db' | 'logger' | 'config'>;

export interface AuthenticatedKey {
  apiKeyId: string;
  accountId: string;
  scopes: string[];
  /** What a request signature is checked against (services/request-signature.ts). */
  signing: KeySigning;
}

export interface KeySigning {
  /** The secrets a signature may be made with: the current one, then a rotated-out one. */
  secrets: string[];
  required: boolean;
}

interface CachedKey extends Omit<AuthenticatedKey, 'signing'> {
  expiresAt: number | null;
  revoked: boolean;
  signingSecret: string;
  previousSigningSecret: { secret: string; until: number } | null;
  requireSignature: boolean;
}

/** lastUsedAt is kept to the minute: writing it on every request would cost a write each. */
const LAST_USED_RESOLUTION_MS = MINUTE_MS;
const MAX_CACHED_KEYS = 100_000;
/** Stands for "no such key" in the cache, so a bot hammering with a dead key costs no reads. */
const UNKNOWN: CachedKey = {
  apiKeyId: '',
  accountId: '',
  scopes: [],
  expiresAt: null,
  revoked: true,
  signingSecret: '',
  previousSigningSecret: null,
  requireSignature: false,
};

const refused = () =>
  new AppError('UNAUTHENTICATED', 'The API key is missing, invalid, revoked or expired');

export interface ApiKeyAuthenticator {
  /**
   * The key behind an `x-api-key` value. Missing, malformed, unknown, revoked and
   * expired keys are all the same 401: the answer tells nothing about which keys exist.
   */
  authenticate(presented: string | undefined): Promise<AuthenticatedKey>;
  /** Drops a key from this instance's cache at once (after a revocation or a change here). */
  forget(keyHash: Uint8Array): void;
  /**
   * The account of a key this instance knows to be valid now, from its cache alone (no
   * read); undefined when it does not know. For refusing before any other work.
   */
  cachedAccountOf(presented: string): string | undefined;
}

/**
 * Keys are high-entropy, so a SHA-256 lookup is enough (no memory-hard hash per
 * request), and the result is cached in memory for API_KEY_CACHE_TTL_MS (1 s by
 * default): a revocation takes effect within that time on every API instance, and at
 * once on the instance that revoked.
 */
export function createApiKeyAuthenticator(deps: Deps): ApiKeyAuthenticator {
  const ttl = deps.config.auth.apiKeyCacheTtlMs;
  const cache =
    ttl > 0 ? new LRUCache<string, CachedKey>({ max: MAX_CACHED_KEYS, ttl }) : undefined;
  const keyOf = (hash: Uint8Array) => Buffer.from(hash).toString('base64');
  const loading = new Map<string, Promise<CachedKey>>();

  async function load(hash: Uint8Array<ArrayBuffer>, now: Date): Promise<CachedKey> {
    const apiKey = await deps.db.prisma.apiKey.findUnique({ where: { keyHash: hash } });
    if (apiKey === null) return UNKNOWN;
    if (
      apiKey.lastUsedAt === null ||
      now.getTime() - apiKey.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS
    ) {
      deps.db.prisma.apiKey
        .update({ where: { id: apiKey.id }, data: { lastUsedAt: now } })
        .catch((error: unknown) =>
          deps.logger.warn({ err: error, apiKeyId: apiKey.id }, 'could not record key use'),
        );
    }
    return {
      apiKeyId: apiKey.id,
      accountId: apiKey.accountId,
      scopes: apiKey.scopes,
      expiresAt: apiKey.expiresAt?.getTime() ?? null,
      revoked: apiKey.revokedAt !== null,
      signingSecret: apiKey.signingSecret,
      previousSigningSecret:
        apiKey.previousSigningSecret === null || apiKey.previousSecretExpiresAt === null
          ? null
          : {
              secret: apiKey.previousSigningSecret,
              until: apiKey.previousSecretExpiresAt.getTime(),
            },
      requireSignature: apiKey.requireSignature,
    };
  }

  return {
    async authenticate(presented) {
      if (presented === undefined || !isWellFormedApiKey(presented)) throw refused();
      const now = new Date();
      const hash = hashApiKey(presented);
      const cacheKey = keyOf(hash);
      let key = cache?.get(cacheKey);
      if (key === undefined) {
        // One read per key at a time: when a busy key's entry lapses, the hundreds of its
        // requests in flight would otherwise each read it, all at once, every TTL.
        let reading = loading.get(cacheKey);
        if (reading === undefined) {
          reading = load(hash, now).finally(() => loading.delete(cacheKey));
          loading.set(cacheKey, reading);
        }
        key = await reading;
        cache?.set(cacheKey, key);
      }
      if (key.revoked || (key.expiresAt !== null && key.expiresAt <= now.getTime()))
        throw refused();
      const previous = key.previousSigningSecret;
      const secrets =
        previous !== null && previous.until > now.getTime()
          ? [key.signingSecret, previous.secret]
          : [key.signingSecret];
      return {
        apiKeyId: key.apiKeyId,
        accountId: key.accountId,
        scopes: key.scopes,
        signing: { secrets, required: key.requireSignature },
      };
    },
    forget(keyHash) {
      cache?.delete(keyOf(keyHash));
    },
    cachedAccountOf(presented) {
      if (cache === undefined || !isWellFormedApiKey(presented)) return undefined;
      const key = cache.get(keyOf(hashApiKey(presented)));
      if (key === undefined || key.revoked) return undefined;
      if (key.expiresAt !== null && key.expiresAt <= Date.now()) return undefined;
      return key.accountId;
    },
  };
}
