import {
  AppError,
  type ApiKeyCreateRequest,
  type ApiKeyUpdateRequest,
  HOUR_MS,
} from '@ingest/contracts';
import type { ApiKey } from '@ingest/db';
import { generateSigningSecret, rotateSecret } from '@ingest/signatures';
import { v7 as uuidv7 } from 'uuid';
import type { ApiDeps } from '../deps.js';
import { holdWithinQuota } from './account-quota.js';
import { displayPrefixOf, generateApiKey, hashApiKey } from './api-key-format.js';

type Deps = Pick<ApiDeps, 'db' | 'config'>;

const activeKeysOf = (accountId: string, now: Date) => ({
  accountId,
  revokedAt: null,
  OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
});

/**
 * Creates a key and returns it with its secret, which is not stored and never shown
 * again, and its signing secret, which is stored (an HMAC is checked with the secret
 * itself) and never shown again.
 */
export async function createApiKey(
  deps: Deps,
  accountId: string,
  input: ApiKeyCreateRequest,
): Promise<{ apiKey: ApiKey; key: string }> {
  const key = generateApiKey();
  const apiKey = await deps.db.prisma.$transaction(async (tx) => {
    const quota = deps.config.auth.apiKeyQuota;
    await holdWithinQuota(
      tx,
      accountId,
      quota,
      () => tx.apiKey.count({ where: activeKeysOf(accountId, new Date()) }),
      () =>
        new AppError(
          'KEY_QUOTA_EXCEEDED',
          `An account may hold ${quota} active keys; revoke one before creating another`,
        ),
    );
    return tx.apiKey.create({
      data: {
        id: uuidv7(),
        accountId,
        name: input.name,
        scopes: input.scopes,
        prefix: displayPrefixOf(key),
        keyHash: hashApiKey(key),
        expiresAt: input.expiresAt === undefined ? null : new Date(input.expiresAt),
        signingSecret: generateSigningSecret(),
        requireSignature: input.requireSignature ?? false,
      },
    });
  });
  return { apiKey, key };
}

export const listApiKeys = (deps: Deps, accountId: string): Promise<ApiKey[]> =>
  deps.db.prisma.apiKey.findMany({ where: { accountId }, orderBy: { createdAt: 'desc' } });

/** One of the account's keys; another account's is answered exactly like a missing one. */
async function ownKey(deps: Deps, accountId: string, id: string): Promise<ApiKey> {
  const apiKey = await deps.db.prisma.apiKey.findFirst({ where: { id, accountId } });
  if (apiKey === null) throw new AppError('NOT_FOUND', 'No API key with this id');
  return apiKey;
}

/** Changes whether calls with the key must be signed. */
export async function updateApiKey(
  deps: Deps,
  accountId: string,
  id: string,
  input: ApiKeyUpdateRequest,
): Promise<ApiKey> {
  await ownKey(deps, accountId, id);
  return deps.db.prisma.apiKey.update({
    where: { id },
    data: { requireSignature: input.requireSignature },
  });
}

/** Gives the key a new signing secret; the one it replaces verifies for the overlap. */
export async function rotateSigningSecret(
  deps: Deps,
  accountId: string,
  id: string,
): Promise<{ apiKey: ApiKey; signingSecret: string }> {
  const current = await ownKey(deps, accountId, id);
  const rotated = rotateSecret(
    current.signingSecret,
    deps.config.auth.signingSecretOverlapHours * HOUR_MS,
  );
  const apiKey = await deps.db.prisma.apiKey.update({
    where: { id },
    data: {
      signingSecret: rotated.secret,
      previousSigningSecret: rotated.previousSecret,
      previousSecretExpiresAt: rotated.previousSecretExpiresAt,
    },
  });
  return { apiKey, signingSecret: rotated.secret };
}

/**
 * Revokes one of the account's keys and returns its hash, so the caller can drop it from
 * caches. Revoking a revoked key again is a no-op.
 */
export async function revokeApiKey(deps: Deps, accountId: string, id: string): Promise<Uint8Array> {
  const { prisma } = deps.db;
  // Another account's key is answered exactly like a missing one.
  const apiKey = await prisma.apiKey.findFirst({
    where: { id, accountId },
    select: { keyHash: true, revokedAt: true },
  });
  if (apiKey === null) throw new AppError('NOT_FOUND', 'No API key with this id');
  if (apiKey.revokedAt === null) {
    await prisma.apiKey.updateMany({
      where: { id, revokedAt: null },
      data: { revokedAt: new Date() },
    });
  }
  return apiKey.keyHash;
}
