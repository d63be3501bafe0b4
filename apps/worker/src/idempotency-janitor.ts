import type { WorkerDeps } from './deps.js';

const BATCH = 5_000;

/**
 * Frees Idempotency-Keys older than IDEMPOTENCY_KEY_TTL_HOURS. The API already treats
 * an expired key as free; this only keeps the table small. Safe in many workers at once.
 */
export async function expireIdempotencyKeys(deps: WorkerDeps): Promise<number> {
  return deps.db.prisma.$executeRaw`
    DELETE FROM idempotency_keys
    WHERE ctid IN (
      SELECT ctid FROM idempotency_keys
      WHERE created_at < now() - make_interval(hours => ${deps.config.idempotency.ttlHours})
      LIMIT ${BATCH}
    )`;
}
