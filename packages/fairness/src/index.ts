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
