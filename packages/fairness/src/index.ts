export {
  createFairAdmission,
  tenantOfAccount,
  tenantOfAddress,
  type Admission,
  type AdmissionOptions,
  type AdmissionState,
  type FairAdmission,
  type Queued,
  type Slot,
  type Tenant,
} from './admission/fair-admission.js';
export { DEFAULT_COST, PUBLISH_COST } from './admission/costs.js';
export { overLimit, rateLimitHeaders, refusalOf, type Refusal } from './admission/refusal.js';
export {
  createRefusalReport,
  REFUSAL_REASONS,
  type RefusalReason,
  type RefusalReport,
  type RefusalReportOptions,
} from './admission/refusal-report.js';
export { createEventQuota, type EventQuota, type Taken } from './event-quota.js';
export {
  EVENTS_PER_LEVEL,
  fairPriorities,
  pruneFairOrder,
  rebaseFairOrder,
  REBASE_LEVEL,
  type FairJob,
} from './fair-order.js';
export { acquireSlot, releaseSlot, type SlotRequest } from './account-slots.js';
export { createShareBook, type ShareBook, type ShareBookOptions } from './share-book.js';
export { lanes } from './lanes.js';
