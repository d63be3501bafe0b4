// Schemas of the operators' view of outgoing webhooks: every account's endpoints with how
// their deliveries go, the deliveries themselves, and resending them.
import { z } from 'zod';
import { EventSearchFields } from './admin.js';
import { PageQueryFields, pageOf } from './pagination.js';
import { storableText } from './safe-text.js';
import {
  DELIVERY_STATUSES,
  DeliverySchema,
  ENDPOINT_STATES,
  EndpointSchema,
} from './webhook-endpoints.js';

/** The window of an endpoint's figures: long enough to show a day's pattern, short enough to read fast. */
export const ENDPOINT_STATS_HOURS = 24;

const uuid = () => z.uuid({ error: 'must be a UUID' });

export const AdminEndpointQuerySchema = z.strictObject({
  state: z.enum(ENDPOINT_STATES).optional().meta({
    description:
      'enabled: delivering; failing: enabled, every delivery failing since `failingSince`; paused: deliveries held until it is resumed; disabled: by its owner or by the service',
  }),
  // As the event search takes it: an id or a handle.
  accountId: EventSearchFields.accountId,
  ...PageQueryFields,
});
export type AdminEndpointQuery = z.infer<typeof AdminEndpointQuerySchema>;

export const AdminEndpointSchema = EndpointSchema.extend({
  account: z.object({ id: z.uuid(), handle: z.string() }),
  lastDay: z
    .object({
      succeeded: z.int(),
      failed: z.int(),
      pending: z.int(),
      successRate: z.number().min(0).max(1).nullable().meta({
        description: 'succeeded / (succeeded + failed); null when none has finished',
      }),
    })
    .meta({ description: `Deliveries created in the last ${ENDPOINT_STATS_HOURS} hours` }),
  lastError: z
    .object({
      deliveryId: z.uuid(),
      at: z.iso.datetime(),
      responseStatus: z.int().nullable(),
      error: z.string(),
    })
    .nullable()
    .meta({ description: `The newest failed attempt in the last ${ENDPOINT_STATS_HOURS} hours` }),
}).meta({ id: 'AdminEndpoint' });
export type AdminEndpoint = z.infer<typeof AdminEndpointSchema>;

export const AdminEndpointListSchema = pageOf(AdminEndpointSchema).meta({
  id: 'AdminEndpointList',
});
export type AdminEndpointList = z.infer<typeof AdminEndpointListSchema>;

const DeliveryFilterFields = {
  endpointId: uuid().optional(),
  accountId: EventSearchFields.accountId,
  type: storableText(0, 100).optional().meta({ description: 'A message type, or `ping`' }),
  eventId: uuid().optional().meta({ description: 'The incoming event whose change it tells of' }),
};

export const AdminDeliveryQuerySchema = z.strictObject({
  ...DeliveryFilterFields,
  status: z.enum(DELIVERY_STATUSES).optional(),
  ...PageQueryFields,
});
export type AdminDeliveryQuery = z.infer<typeof AdminDeliveryQuerySchema>;

export const AdminDeliverySchema = DeliverySchema.extend({
  accountId: z.uuid(),
  accountHandle: z.string(),
  eventId: z.uuid().nullable(),
}).meta({ id: 'AdminDelivery' });
export type AdminDelivery = z.infer<typeof AdminDeliverySchema>;

export const AdminDeliveryListSchema = pageOf(AdminDeliverySchema).meta({
  id: 'AdminDeliveryList',
});
export type AdminDeliveryList = z.infer<typeof AdminDeliveryListSchema>;

/** At most this many messages are resent by one bulk call; the next call takes the rest. */
export const BULK_RESEND_MAX = 1_000;

export const DeliveryResendRequestSchema = z
  .strictObject({ status: z.literal('failed').default('failed'), ...DeliveryFilterFields })
  .meta({ id: 'DeliveryResendRequest', examples: [{ status: 'failed', type: 'article.created' }] });
export type DeliveryResendRequest = z.infer<typeof DeliveryResendRequestSchema>;

export const DeliveryResendResultSchema = z
  .object({
    resent: z.int().meta({ description: `New deliveries queued (at most ${BULK_RESEND_MAX})` }),
    more: z.boolean().meta({ description: 'Whether failed messages are left: call again' }),
  })
  .meta({ id: 'DeliveryResendResult' });
export type DeliveryResendResult = z.infer<typeof DeliveryResendResultSchema>;

export const AdminDeliveryParamsSchema = z.object({ id: uuid() });
