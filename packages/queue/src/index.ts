export {
  connectRedis,
  createRedisConnection,
  type RedisClient,
  type RedisRole,
  type RedisTarget,
} from './redis-connection.js';
export { checkRedis } from './reachability.js';
export {
  claimNamespace,
  deploymentKey,
  holdNamespace,
  NAMESPACE_RECLAIM_MS,
  type NamespaceHold,
} from './deployment-claim.js';
export { CONTENT_EVENTS_QUEUE, ContentJobDataSchema, type ContentJobData } from './job-registry.js';
export {
  contentJobOptions,
  failureForQueue,
  isLastAttempt,
  isPermanent,
  type JobPolicy,
} from './retry/content-events.js';
export {
  DELIVERY_BACKOFF,
  deliveryBackoff,
  deliveryPolicyOf,
  isLastDelivery,
  RetryDeliveryLater,
  retryDelayMs,
  type DeliveryPolicy,
} from './retry/deliveries.js';
export { lockOptions, STALLS_ALLOWED } from './retry/stalled-jobs.js';
export { bullPrefix, createContentQueue, type ContentQueue } from './content-queue.js';
export {
  byShard,
  contentQueueNames,
  createContentShards,
  shardIndexOf,
  type ContentShards,
  type QueueLayout,
} from './content-shards.js';
export { enqueueContentEvents, type ContentJob } from './enqueue-content.js';
export { evictionPolicyOf, warnUnlessNoEviction } from './eviction-policy.js';
export { requeueEvent, requeueJob, type Requeued } from './requeue.js';
export { promoteJobs, promoteParked, type JobRef } from './parked-jobs.js';
export { countWorkers, readQueueDepth, type QueueDepth } from './queue-queries.js';
export {
  createMinuteCounters,
  MINUTE_COUNTS,
  MINUTE_GAUGES,
  readHistory,
  recordGauges,
  type GaugeSample,
  type History,
  type HistoryPoint,
  type MinuteCountName,
  type MinuteCounter,
  type MinuteCounters,
  type MinuteGaugeName,
} from './minute-history.js';
export {
  createDeliveryQueue,
  deliveriesQueueName,
  DELIVERIES_QUEUE,
  DeliveryJobDataSchema,
  enqueueDeliveries,
  requeueDelivery,
  type DeliveryJobData,
  type DeliveryQueue,
  type NewDelivery,
} from './delivery-queue.js';
export { queueTelemetry } from './queue-telemetry.js';
