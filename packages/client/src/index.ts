// The content ingestion service's client: typed from the service's OpenAPI document,
// exactly-once publishing by default. See README.md.
export { IngestClient, type PublishOptions, type PublishResult } from './client.js';
export type { PublishManyOptions } from './publish-many.js';
export type { PublishManyResult } from './settle-batch.js';
export type { IngestClientOptions } from './caller.js';
export type { ApiKeys } from './api-keys.js';
export type { Endpoints } from './endpoints.js';
export type { Operator } from './operator.js';
export type {
  CallOptions,
  Receipt,
  AcceptedEvent,
  ContentEvent,
  BatchEvent,
  EventName,
  EventData,
  ReceiptQuery,
  DeliveryQuery,
  MessageFilter,
} from './types.js';
export { IngestError, type IngestErrorDetails, type FieldError } from './errors.js';
export { type RetryOptions } from './retry.js';
export {
  verifyWebhook,
  signatureHeaders,
  WebhookVerificationFailed,
  type WebhookMessage,
} from './signing.js';
export type { paths, components } from './generated/openapi.js';
