import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * An API key is `sk-` + 43 base62 characters (32 random bytes) + 6 base62 characters of
 * CRC-32 over those 43. The checksum lets a malformed or mistyped key be refused without
 * a database read; the randomness is what makes it a secret.
 */
export const API_KEY_PREFIX = 'sk-';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_BYTES = 32;
const SECRET_CHARS = 43; // ceil(256 / log2(62))
const CHECKSUM_CHARS = 6; // ceil(32 / log2(62))
const API_KEY_PATTERN = new RegExp(
  `^${API_KEY_PREFIX}[0-9A-Za-z]{${SECRET_CHARS + CHECKSUM_CHARS}}$`,
);
/** How much of the key is shown in listings: the prefix and 8 characters, about 48 bits. */
const DISPLAY_CHARS = API_KEY_PREFIX.length + 8;

function toBase62(value: bigint, width: number): string {
  let text = '';
  for (let rest = value; rest > 0n; rest /= 62n) text = BASE62[Number(rest % 62n)] + text;
  return text.padStart(width, '0');
}

const checksumOf = (secret: string): string => toBase62(BigInt(crc32(secret)), CHECKSUM_CHARS);

export function generateApiKey(): string {
  const secret = toBase62(BigInt(`0x${randomBytes(SECRET_BYTES).toString('hex')}`), SECRET_CHARS);
  return `${API_KEY_PREFIX}${secret}${checksumOf(secret)}`;
}

/** True when `key` has the shape of one of our keys and its checksum matches. */
export function isWellFormedApiKey(key: string): boolean {
  if (!API_KEY_PATTERN.test(key)) return false;
  const body = key.slice(API_KEY_PREFIX.length);
  return checksumOf(body.slice(0, SECRET_CHARS)) === body.slice(SECRET_CHARS);
}

/** SHA-256 is enough for a 256-bit random key: there is no dictionary to try. */
export const hashApiKey = (key: string): Uint8Array<ArrayBuffer> =>
  new Uint8Array(createHash('sha256').update(key).digest());

export const displayPrefixOf = (key: string): string => key.slice(0, DISPLAY_CHARS);
