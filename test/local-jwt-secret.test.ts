// `pnpm start` signs tokens with a secret of the checkout's own, never a published one.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadApiConfig } from '@ingest/config';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript script of the repository, without types
import { localJwtSecret } from '../scripts/local-jwt-secret.mjs';

const root = await mkdtemp(join(tmpdir(), 'ingest-checkout-'));
afterAll(() => rm(root, { recursive: true, force: true }));

type Secret = { secret: string; path: string; created: boolean };

describe("a checkout's token secret", () => {
  it('is made once, random, kept readable by its owner only, and reused', async () => {
    const first = localJwtSecret(root) as Secret;
    expect(first.created).toBe(true);
    expect(first.path).toBe(join(root, '.local', 'jwt-secret'));
    expect((await stat(first.path)).mode & 0o777).toBe(0o600);
    const again = localJwtSecret(root) as Secret;
    expect(again).toEqual({ ...first, created: false });
    // Another checkout gets another secret.
    const other = await mkdtemp(join(tmpdir(), 'ingest-checkout-'));
    try {
      expect((localJwtSecret(other) as Secret).secret).not.toBe(first.secret);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('is one the API accepts', () => {
    const { secret } = localJwtSecret(root) as Secret;
    expect(loadApiConfig({ JWT_SECRET: secret }).auth.jwtSecret).toBe(secret);
  });
});
