import { hash, verify } from '@node-rs/argon2';

/**
 * argon2id (the library's default algorithm) at OWASP's recommended minimum (19 MiB,
 * 2 passes, 1 lane), computed off the event loop (libuv's pool). The parameters are
 * stored inside each hash, so raising them upgrades new hashes without breaking old ones.
 */
const ARGON2ID = {
  memoryCost: 19 * 1024,
  timeCost: 2,
  parallelism: 1,
} as const;

export const hashPassword = (password: string): Promise<string> => hash(password, ARGON2ID);

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  // No stored password has an unpaired surrogate (registration refuses them); such a
  // password would otherwise match one with U+FFFD in its place.
  if (!password.isWellFormed()) return false;
  try {
    return await verify(passwordHash, password);
  } catch {
    return false; // a malformed stored hash is a failed login, not a 500
  }
}

let decoyHash: Promise<string> | undefined;

/**
 * Spends the time of one verification when there is no account to verify against, so
 * that "no such email" and "wrong password" take about as long as each other.
 */
export async function verifyAgainstDecoy(password: string): Promise<false> {
  decoyHash ??= hashPassword('decoy password that matches no account');
  await verifyPassword(await decoyHash, password);
  return false;
}
