import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

/**
 * A new event id: a UUIDv7, whose time order is what the log's partitions are ranged by.
 *
 * The random bytes come from a pool refilled 256 ids at a time: uuid's own `v7()` makes a
 * WebCrypto call per id, which shows at a batch's rate of ids. The millisecond and counter
 * are kept as `v7()` keeps them (RFC 9562, method 1: a counter seeded at random each
 * millisecond), so the ids of one process stay strictly increasing.
 */
export function newEventId(): string {
  if (used === POOL.length) {
    randomFillSync(POOL);
    used = 0;
  }
  const random = POOL.subarray(used, used + 16);
  used += 16;
  const now = Date.now();
  if (now > msecs) {
    msecs = now;
    seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
  } else {
    seq = (seq + 1) | 0;
    if (seq === 0) msecs += 1;
  }
  return v7({ random, msecs, seq });
}

const POOL = Buffer.alloc(16 * 256);
let used = POOL.length;
let msecs = -Infinity;
let seq = 0;
