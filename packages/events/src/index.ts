// Every event type a publisher may send, one module each, and what follows from their list.
export {
  EVENT_NAMES,
  EVENT_TYPE_LIST,
  EVENT_TYPES,
  isEventName,
  type EventData,
  type EventName,
  type EventTypes,
} from './registry.js';
export type { ApplyScope, Change, EventType, Outcome, Outcomes, Tx } from './event-type.js';
export { batchRequestSchema, ContentEventRequestSchema, orderKeysOf } from './schemas.js';
export {
  canPublish,
  PUBLISH_ALL_SCOPE,
  READ_RECEIPTS_SCOPE,
  SCOPES,
  scopesToPublish,
  type Scope,
} from './scopes.js';
export {
  MESSAGE_TYPES,
  OutgoingMessageSchema,
  SUBSCRIBABLE_MESSAGE_TYPES,
  type OutgoingMessage,
} from './outgoing.js';
export {
  ENDPOINT_PAUSED_MESSAGE,
  outgoingMessageSchemaId,
  type Names,
  type OutboxEntry,
} from './messages.js';
export { buildEventCatalog, EventCatalogSchema, type EventCatalog } from './catalog.js';
export {
  checkFilter,
  compileFilter,
  filterFieldsOf,
  MessageFilterSchema,
  type FilterProblem,
  type MessageFilter,
} from './message-filter.js';
export {
  ApiKeyCreateRequestSchema,
  EndpointCreateRequestSchema,
  EndpointUpdateRequestSchema,
  type EndpointCreateRequest,
  type EndpointUpdateRequest,
} from './requests.js';
export {
  categoriesNamedBy,
  createCategoryResolver,
  type CategoryIds,
  type CategoryResolver,
} from './categories.js';
export { createCategoryCache, type CategoryCache } from './category-cache.js';
export { FALLBACK_SLUG, slugFromTitle } from './articles/slugs.js';
export { readingMinutes } from './articles/reading-time.js';
