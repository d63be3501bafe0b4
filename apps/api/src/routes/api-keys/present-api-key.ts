import type { ApiKeySummary } from '@ingest/contracts';
import type { ApiKey } from '@ingest/db';

const isoOrNull = (date: Date | null): string | null => date?.toISOString() ?? null;

/** A key as listed: never its hash or its signing secret; its secret is not stored at all. */
export const presentApiKey = (apiKey: ApiKey): ApiKeySummary => ({
  id: apiKey.id,
  name: apiKey.name,
  scopes: apiKey.scopes,
  prefix: apiKey.prefix,
  createdAt: apiKey.createdAt.toISOString(),
  expiresAt: isoOrNull(apiKey.expiresAt),
  lastUsedAt: isoOrNull(apiKey.lastUsedAt),
  revokedAt: isoOrNull(apiKey.revokedAt),
  requireSignature: apiKey.requireSignature,
});
