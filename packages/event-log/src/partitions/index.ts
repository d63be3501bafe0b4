// The event log's time partitions: made ahead, dropped past the longest retention in
// force; the events of accounts with a shorter one are deleted from them row by row
// (account-expiry.ts). See packages/db/README.md, "The partitioned event log".
export {
  idBoundaryAt,
  DAY_MS,
  timeOfId,
  partitionName,
  periodStart,
  nextBoundary,
  type PartitionInterval,
} from './partition-range.js';
export {
  listPartitions,
  restoredPartitionName,
  quoted,
  attach,
  EVENT_LOG_TABLES,
  type Partition,
  type EventLogTable,
} from './catalog.js';
export { withPartitionLock } from './maintenance-lock.js';
export { premakePartitions, createPartition, type PremakeOptions } from './premake.js';
export {
  runRetention,
  heldPartitions,
  expiredPartitions,
  type Archiver,
  type DetachedPeriod,
  type HeldPartition,
  type RetentionOptions,
  type RetentionReport,
} from './retention.js';
export {
  summarizeClosedPartitions,
  rangesWithoutKey,
  SUMMARY_SETTLE_MS,
  type IdRange,
} from './key-summaries.js';
export {
  effectiveRetentionDays,
  longestRetentionDays,
  readLongestRetention,
  readOwnRetentions,
  shortestRetentionDays,
  type RetentionPolicy,
} from './retention-policy.js';
export {
  expireAccountEvents,
  EXPIRY_BATCH,
  type AccountExpiryOptions,
  type AccountExpiryReport,
} from './account-expiry.js';
export {
  maintainPartitions,
  premakeAhead,
  EXPIRED_EVENTS_PER_ROUND,
  PREMAKE_DAYS,
  type PartitionMaintenance,
  type PartitionMaintenanceReport,
} from './maintain.js';
