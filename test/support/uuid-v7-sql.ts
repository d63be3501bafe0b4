/**
 * SQL for a UUIDv7 made at the timestamptz `at` (an SQL expression), random elsewhere: what
 * the API gives every event. The event log is partitioned by the time in the id, so rows
 * written straight through SQL need ids like these (PostgreSQL 15 has no uuidv7()).
 */
export const uuidV7At = (at: string): string =>
  `(lpad(to_hex((extract(epoch FROM ${at}) * 1000)::bigint), 12, '0')
    || '7' || substr(md5(random()::text), 1, 3)
    || '8' || substr(md5(random()::text), 1, 15))::uuid`;
