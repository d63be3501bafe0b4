export { connectRedis, createRedisConnection, type RedisRole } from './redis-connection.js';
export { checkRedis } from './reachability.js';
export {
  CONTENT_EVENTS_QUEUE,
  ContentJobDataSchema,
  contentJobOptions,
  type ContentJobData,
  type JobPolicy,
} from './job-registry.js';
export {
  bullPrefix,
  createContentQueue,
  enqueueContentEvents,
  type ContentQueue,
} from './content-queue.js';
export { evictionPolicyOf, warnUnlessNoEviction } from './eviction-policy.js';
export { requeueEvent, requeueJob, type Requeued } from './requeue.js';
export { promoteParked, type JobRef } from './parked-jobs.js';
export { countWorkers, readQueueDepth, type QueueDepth } from './queue-queries.js';
export {
  createMinuteCounter,
  readMinuteCounts,
  type MinuteCounter,
} from './throughput-counters.js';
export {
  createDeliveryQueue,
  DELIVERIES_QUEUE,
  DELIVERY_BACKOFF,
  DeliveryJobDataSchema,
  deliveryPolicyOf,
  enqueueDeliveries,
  requeueDelivery,
  retryDelayMs,
  type DeliveryJobData,
  type DeliveryPolicy,
  type DeliveryQueue,
} from './delivery-queue.js';
