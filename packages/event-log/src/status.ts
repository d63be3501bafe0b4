import type { EventStatus } from '@ingest/contracts';

/** Statuses of an event that is not finished: it still holds its places in its lines. */
export const UNFINISHED_STATUSES = [
  'queued',
  'processing',
] as const satisfies readonly EventStatus[];
export type UnfinishedStatus = (typeof UNFINISHED_STATUSES)[number];

export const isUnfinishedStatus = (status: string): status is UnfinishedStatus =>
  (UNFINISHED_STATUSES as readonly string[]).includes(status);

/**
 * The SQL predicate "the event is not finished", on the column of table alias `alias`.
 * The partial index `webhook_logs_unfinished_idx` (prisma/schema.prisma) is declared with
 * this very predicate, which is what lets the planner use it; status.test.ts holds the two
 * together. Written out nowhere else.
 */
export const unfinished = (alias?: string): string =>
  `${alias === undefined ? '' : `${alias}.`}status IN ('queued', 'processing')`;

/**
 * The channel a NOTIFY goes out on, with the event id, when an event whose caller waits
 * (`Prefer: wait`) finishes. Sent inside the finishing transaction, so it is delivered on
 * commit, when the final receipt can be read.
 */
export const EVENT_FINISHED_CHANNEL = 'webhook_log_finished';
