// The event log: every write to webhook_logs, event_attempts, pending_order_keys and
// idempotency_keys, and the backlog that both the API and the workers read. Reads for
// receipts and operators stay with their callers.
export {
  UNFINISHED_STATUSES,
  unfinished,
  EVENT_FINISHED_CHANNEL,
  type UnfinishedStatus,
} from './status.js';
export { inTransaction, withConnection, type Queryable } from './queryable.js';
export { insertAccepted, type QueuedEvent } from './accepted.js';
export { newEventId } from './event-ids.js';
export {
  expireIdempotencyKeys,
  keyLockArguments,
  type IdempotencyClaim,
} from './idempotency-keys.js';
export {
  recordCalls,
  type AcceptedEntry,
  type CallOutcome,
  type CallRecord,
  type Recorded,
} from './record-calls.js';
export type { RejectedEvent } from './rejected.js';
export { claimEvents, readEvents, stillBlocked, type Claim, type EventRow } from './claims.js';
export { lockHeadsAndRuns, type RunRequest, type Tx } from './runs.js';
export { recordApplied, type AppliedEvent } from './applied.js';
export { DEAD_ROWS_FLOOR, HOT_TABLES, vacuumHotTables } from './hot-tables.js';
export { recordFailure, recordDuplicate, type FailedAttempt } from './failures.js';
export { queuedHeadsOf, linesOf, type Line, type LineHead } from './lines.js';
export { replayFailed, type Requeued } from './replay.js';
export { unfinishedOlderThan, isUnfinished, type Unfinished } from './outbox.js';
export { purgeAccountEvents } from './purge.js';
export { deleteAccountEvents, failAccountEvents } from './erase-account.js';
export { BACKLOG_LIMIT, readBacklog, type AccountBacklog, type Backlog } from './backlog.js';
export * from './partitions/index.js';
