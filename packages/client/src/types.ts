import type { components, paths } from './generated/openapi.js';

export type Schemas = components['schemas'];

/** The JSON body of an operation's request, as the OpenAPI document describes it. */
export type JsonBody<
  Path extends keyof paths,
  Method extends 'post' | 'patch',
> = paths[Path][Method] extends {
  requestBody?: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

export type Receipt = Schemas['Receipt'];
export type AcceptedEvent = Schemas['AcceptedEvent'];
export type ContentEvent = JsonBody<'/api/webhooks/content', 'post'>;
export type EventName = ContentEvent['event'];
export type EventData<Name extends EventName> = Extract<ContentEvent, { event: Name }>['data'];
/** One event of a batch: a content event and, optionally, its idempotencyKey. */
export type BatchEvent = JsonBody<'/api/webhooks/content/batch', 'post'>['events'][number];
export type ReceiptQuery = NonNullable<
  paths['/api/webhooks/content']['get']['parameters']['query']
>;
/** What an endpoint's `filter` is: a predicate over an outgoing message's body. */
export type MessageFilter = Schemas['MessageFilterInput'];
export type DeliveryQuery = NonNullable<
  paths['/api/webhooks/endpoints/{id}/deliveries']['get']['parameters']['query']
>;

export interface CallOptions {
  signal?: AbortSignal;
  /** Told before each retry: which send failed, why, and how long the wait is. */
  onRetry?: (retry: { attempt: number; delayMs: number; reason: string }) => void;
}
