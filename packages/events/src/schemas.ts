// The schemas that follow from the list of event types: each event's `data` under the
// deployment's limits, and the request bodies the OpenAPI document shows.
import { DEFAULT_CONTENT_LIMITS, type ContentLimits } from '@ingest/contracts';
import { z } from 'zod';
import { EVENT_TYPE_LIST, EVENT_TYPES, type EventData, type EventName } from './registry.js';
import { nonEmpty } from './in-order.js';

/** The lines an event stands in (see EventType.orderKeys). */
export const orderKeysOf = <Name extends EventName>(event: Name, data: EventData<Name>): string[] =>
  EVENT_TYPES[event].orderKeys(data);

/** A request of each event type, as the document's examples show them. */
const EXAMPLES = EVENT_TYPE_LIST.map((type) => ({ event: type.name, data: type.example }));

const requestVariants = (limits: ContentLimits) =>
  EVENT_TYPE_LIST.map((type, i) =>
    z
      .strictObject({ event: z.literal(type.name), data: type.dataSchema(limits) })
      .meta({ examples: [EXAMPLES[i]] }),
  );

/**
 * The request body of POST /api/webhooks/content, for documentation: one variant an
 * event. The handler checks the envelope and then the payload itself (api's publish/).
 */
export const ContentEventRequestSchema = z
  .discriminatedUnion('event', nonEmpty(requestVariants(DEFAULT_CONTENT_LIMITS)))
  .meta({ id: 'ContentEventRequest', examples: EXAMPLES });

const IdempotencyKeyField = z.string().min(1).max(255).optional().meta({
  description:
    "1-255 printable ASCII characters, unique per event: the item is recorded once across retries of the whole batch, and a retry answers with the first call's id",
});

/**
 * The request body of POST /api/webhooks/content/batch, for documentation: the items are
 * checked one by one by the handler, so that one bad item is refused alone.
 */
export const batchRequestSchema = (maxEvents: number) =>
  z
    .strictObject({
      events: z
        .array(
          z.union(
            requestVariants(DEFAULT_CONTENT_LIMITS).map((variant) =>
              variant.extend({ idempotencyKey: IdempotencyKeyField }),
            ),
          ),
        )
        .min(1)
        .max(maxEvents),
    })
    .meta({
      id: 'ContentBatchRequest',
      examples: [
        {
          events: EXAMPLES.slice(0, 2).map((event, i) => ({
            ...event,
            idempotencyKey: `fridays-${i + 1}`,
          })),
        },
      ],
    });
