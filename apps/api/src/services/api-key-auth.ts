import { AppError } from '@ingest/contracts';
import type { ApiDeps } from '../deps.js';
import { hashApiKey, isWellFormedApiKey } from './api-key-format.js';

type Deps = Pick<ApiDeps, 'db' | 'logger'>;

export interface AuthenticatedKey {
  apiKeyId: string;
  accountId: string;
  scopes: string[];
}

/** lastUsedAt is kept to the minute: writing it on every request would cost a write each. */
const LAST_USED_RESOLUTION_MS = 60_000;

const refused = () =>
  new AppError('UNAUTHENTICATED', 'The API key is missing, invalid, revoked or expired');

/**
 * The key behind an `x-api-key` value. Missing, malformed, unknown, revoked and expired
 * keys are all the same 401: the answer tells a caller nothing about which keys exist.
 */
export async function authenticateApiKey(
  deps: Deps,
  presented: string | undefined,
  now = new Date(),
): Promise<AuthenticatedKey> {
  if (presented === undefined || !isWellFormedApiKey(presented)) throw refused();
  const apiKey = await deps.db.prisma.apiKey.findUnique({
    where: { keyHash: hashApiKey(presented) },
  });
  if (apiKey === null || apiKey.revokedAt !== null) throw refused();
  if (apiKey.expiresAt !== null && apiKey.expiresAt <= now) throw refused();

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
  return { apiKeyId: apiKey.id, accountId: apiKey.accountId, scopes: apiKey.scopes };
}
