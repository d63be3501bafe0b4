// The event log's time partitions: made ahead, dropped after the retention period, never
// a row deleted. See packages/db/README.md, "The partitioned event log".
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
export { mayHaveAgedOut } from './aged-out.js';
export {
  maintainPartitions,
  premakeAhead,
  PREMAKE_DAYS,
  type PartitionMaintenance,
} from './maintain.js';
