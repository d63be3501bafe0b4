import { z } from 'zod';
import { PageQueryFields, pageOf } from './pagination.js';
import { storableText, trimmedText } from './safe-text.js';

/** Longer URLs are refused: some receivers and proxies refuse them anyway. */
export const ENDPOINT_URL_MAX_LENGTH = 2048;

const EndpointUrlSchema = storableText(1, ENDPOINT_URL_MAX_LENGTH).meta({
  description:
    'Where deliveries are POSTed: https (http only where the deployment allows it), no credentials, not a private, loopback or link-local address',
});

/** The most attempts a second, and at once, an endpoint may ask to be limited to. */
export const ENDPOINT_RATE_MAX = { perSecond: 10_000, inFlight: 1_000 } as const;

const EndpointRateSchema = z
  .strictObject({
    perSecond: z.int().min(1).max(ENDPOINT_RATE_MAX.perSecond).nullable().optional().meta({
      description: 'At most this many attempts in any second, across every delivery worker',
    }),
    inFlight: z.int().min(1).max(ENDPOINT_RATE_MAX.inFlight).nullable().optional().meta({
      description: 'At most this many attempts at once, across every delivery worker',
    }),
  })
  .refine(
    (rate) => (rate.perSecond ?? null) !== null || (rate.inFlight ?? null) !== null,
    'must set perSecond, inFlight or both (null removes the limit)',
  )
  .meta({ id: 'EndpointRate' });

/**
 * The request bodies of creating and changing an endpoint, for the message types an
 * endpoint may subscribe to (the event types', in @ingest/events) and the filter language
 * over their bodies (also there). Duplicates are folded, as for an API key's scopes:
 * naming a type twice is harmless.
 */
export function endpointRequestSchemas<Filter extends z.ZodType>(
  messageTypes: readonly string[],
  filter: Filter,
) {
  const delivery = {
    filter: filter.nullable().optional().meta({
      description:
        'Deliver only the messages this predicate passes (null: every message of its types); see filterFields in GET /api/event-types',
    }),
    rate: EndpointRateSchema.nullable().optional().meta({
      description:
        'Attempts a second and at once; messages over it wait, in order (null: no limit)',
    }),
  };
  const events = z
    .array(z.enum(messageTypes, { error: () => `must be one of: ${messageTypes.join(', ')}` }))
    .min(1, 'must name at least one event type')
    .max(messageTypes.length * 4)
    .transform((types) => [...new Set(types)]);
  return {
    create: z
      .strictObject({
        url: EndpointUrlSchema,
        events: events.optional().meta({
          description: 'The event types to deliver (default: all of them)',
        }),
        description: trimmedText(0, 500).optional(),
        ...delivery,
      })
      .meta({
        id: 'EndpointCreateRequest',
        examples: [
          {
            url: 'https://hooks.example.com/ingest',
            events: ['article.created', 'article.updated'],
            description: 'Search index',
            filter: { field: 'data.article.category', eq: 'News' },
            rate: { perSecond: 20, inFlight: 4 },
          },
        ],
      }),
    update: z
      .strictObject({
        url: EndpointUrlSchema.optional(),
        events: events.optional(),
        description: trimmedText(0, 500).nullable().optional(),
        enabled: z.boolean().optional().meta({
          description:
            'false ends deliveries (those due fail); true turns them on again, also after the service disabled the endpoint. To hold deliveries instead, pause it',
        }),
        ...delivery,
      })
      .refine((body) => Object.keys(body).length > 0, 'must change at least one field')
      .meta({ id: 'EndpointUpdateRequest', examples: [{ enabled: false }] }),
  };
}

export const ENDPOINT_STATES = ['enabled', 'failing', 'paused', 'disabled'] as const;
export type EndpointState = (typeof ENDPOINT_STATES)[number];

const EndpointFields = {
  id: z.uuid(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  enabled: z.boolean(),
  disabledReason: z.string().nullable().meta({
    description:
      'Why the service disabled the endpoint (it answered 410, or failed for too long); null when enabled or disabled by its owner',
  }),
  disabledAt: z.iso.datetime().nullable(),
  failingSince: z.iso.datetime().nullable().meta({
    description: 'The first failed attempt since the last success; null while deliveries succeed',
  }),
  state: z.enum(ENDPOINT_STATES).meta({
    description:
      'enabled: delivering; failing: delivering, every attempt failing since failingSince; paused: deliveries wait, held, until it is resumed (by the breaker or its owner); disabled: none are made (by its owner, or a 410)',
  }),
  pausedAt: z.iso.datetime().nullable(),
  pausedReason: z.string().nullable().meta({
    description:
      'Why it is paused: the breaker (every attempt failed for WEBHOOK_BREAKER_AFTER) or its owner',
  }),
  filter: z.record(z.string(), z.unknown()).nullable().meta({
    description: 'The MessageFilter it was given; null: every message of its types',
  }),
  rate: z
    .object({ perSecond: z.int().nullable(), inFlight: z.int().nullable() })
    .nullable()
    .meta({ description: 'Its limits; null: none' }),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
};

export const EndpointSchema = z.object(EndpointFields).meta({ id: 'Endpoint' });
export type Endpoint = z.infer<typeof EndpointSchema>;

const EndpointSecretSchema = z.string().meta({
  description:
    "The endpoint's signing secret (Standard Webhooks: `whsec_` and base64), shown this once only",
});

export const EndpointCreatedSchema = z
  .object({ ...EndpointFields, secret: EndpointSecretSchema })
  .meta({ id: 'EndpointCreated' });
export type EndpointCreated = z.infer<typeof EndpointCreatedSchema>;

export const EndpointListSchema = z
  .object({ items: z.array(EndpointSchema) })
  .meta({ id: 'EndpointList' });
export type EndpointList = z.infer<typeof EndpointListSchema>;

export const EndpointIdParamsSchema = z.object({ id: z.uuid({ error: 'must be a UUID' }) });

export const EndpointSecretRotatedSchema = z
  .object({
    secret: EndpointSecretSchema,
    previousSecretExpiresAt: z.iso.datetime().nullable().meta({
      description:
        'Until when deliveries are also signed with the previous secret (null when the overlap is 0), so a receiver can switch without refusing one',
    }),
  })
  .meta({ id: 'EndpointSecretRotated' });
export type EndpointSecretRotated = z.infer<typeof EndpointSecretRotatedSchema>;

export const DELIVERY_STATUSES = ['pending', 'held', 'succeeded', 'failed'] as const;

export const DeliverySchema = z
  .object({
    id: z.uuid(),
    messageId: z.string().meta({ description: 'The `webhook-id` of every attempt of it' }),
    endpointId: z.uuid(),
    type: z.string().meta({ description: 'The outgoing event type, or `ping`' }),
    status: z.enum(DELIVERY_STATUSES).meta({
      description:
        'pending: an attempt is due; held: its endpoint is paused, and it waits for a resume; succeeded: a 2xx answer; failed: out of attempts, a 410, or the endpoint was disabled',
    }),
    attempts: z.int(),
    nextAttemptAt: z.iso.datetime().nullable(),
    responseStatus: z.int().nullable().meta({ description: "The last answer's status" }),
    latencyMs: z.int().nullable().meta({ description: 'How long the last attempt took' }),
    responseBody: z.string().nullable().meta({
      description: "The start of the last answer's body (at most 1,000 characters)",
    }),
    error: z.string().nullable().meta({
      description:
        'Why the last attempt got no answer (a refused address, a timeout, a connection error) or why the delivery ended',
    }),
    createdAt: z.iso.datetime(),
    finishedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'Delivery' });
export type Delivery = z.infer<typeof DeliverySchema>;

export const DeliveryListSchema = pageOf(DeliverySchema).meta({ id: 'DeliveryList' });
export type DeliveryList = z.infer<typeof DeliveryListSchema>;

export const DeliveryListQuerySchema = z.strictObject(PageQueryFields);
export type DeliveryListQuery = z.infer<typeof DeliveryListQuerySchema>;

export const DeliveryParamsSchema = z.object({
  id: z.uuid({ error: 'must be a UUID' }),
  deliveryId: z.uuid({ error: 'must be a UUID' }),
});

/** A message's `webhook-id`: its id, marked as one (`msg_...`), the same on every attempt. */
export const webhookIdOf = (messageId: string): string => `msg_${messageId}`;

/** How much of an answer's body a delivery shows (the worker reads up to WEBHOOK_RESPONSE_MAX_BYTES). */
export const DELIVERY_RESPONSE_SHOWN_CHARS = 1_000;
