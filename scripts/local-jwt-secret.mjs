// The token secret of a local checkout, for `pnpm start` and `pnpm dev`.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * A random secret per checkout, made on first use in `<root>/.local/jwt-secret` (ignored
 * by git, readable by its owner only) and reused afterwards: no token can be forged by
 * someone who read the source, and tokens survive a restart.
 * @param {string} root the checkout's root folder
 * @returns {{ secret: string, path: string, created: boolean }}
 */
export function localJwtSecret(root) {
  const path = join(root, '.local', 'jwt-secret');
  if (existsSync(path)) return { secret: readFileSync(path, 'utf8').trim(), path, created: false };
  const secret = randomBytes(48).toString('base64url');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${secret}\n`, { mode: 0o600 });
  return { secret, path, created: true };
}
