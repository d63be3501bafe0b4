// The catalog of event types (GET /api/event-types): what a publisher may send and what
// an endpoint will receive, as JSON Schema converted from the very zod schemas the API
// and the workers validate with, so that it cannot drift from them.
import type { ContentLimits } from '@ingest/contracts';
import { z } from 'zod';
import { filterFieldsOf } from './message-filter.js';
import { MESSAGE_TYPES, SUBSCRIBABLE_MESSAGE_TYPES } from './outgoing.js';
import { EVENT_NAMES, EVENT_TYPE_LIST } from './registry.js';
import { SCOPES, scopesToPublish } from './scopes.js';

const JsonSchemaObject = z
  .record(z.string(), z.unknown())
  .meta({ description: 'A JSON Schema (draft 2020-12)' });

const NoteFields = {
  version: z.int().min(1).meta({
    description:
      'Grows by one with every change that could break a sender or receiver relying on the previous one; adding an optional field is not one',
  }),
  description: z.string(),
};

export const IncomingEventTypeSchema = z
  .object({
    name: z.enum(EVENT_NAMES).meta({ description: 'The `event` of POST /api/webhooks/content' }),
    ...NoteFields,
    scopes: z
      .array(z.enum(SCOPES))
      .meta({ description: 'A key holding any one of these scopes may publish it' }),
    dataSchema: JsonSchemaObject.meta({
      description:
        "The event's `data`, under this deployment's content limits. A few checks are code rather than schema (a title not blank, a URL that parses as http(s), no NUL character) and are made too",
    }),
  })
  .meta({ id: 'IncomingEventType' });

export const OutgoingMessageTypeSchema = z
  .object({
    type: z.enum(MESSAGE_TYPES.map((message) => message.type)),
    ...NoteFields,
    subscribable: z.boolean().meta({
      description: "Whether an endpoint's `events` may name it (`ping` comes only when asked for)",
    }),
    messageSchema: JsonSchemaObject.meta({
      description:
        'The whole body a delivery POSTs, `{ type, timestamp, data }`, as a receiver should parse it: fields it does not know may be added within a version, and are to be ignored',
    }),
    filterFields: z.array(z.string()).meta({
      description:
        "The paths an endpoint's `filter` may name for this type, dot-separated (`data.article.category`): the body's fields holding a string, a number, a boolean or null, outside any array",
    }),
  })
  .meta({ id: 'OutgoingMessageType' });

export const EventCatalogSchema = z
  .object({
    incoming: z.array(IncomingEventTypeSchema),
    outgoing: z.array(OutgoingMessageTypeSchema),
  })
  .meta({ id: 'EventCatalog' });
export type EventCatalog = z.infer<typeof EventCatalogSchema>;

// Both as parsed (`input`): an event's data as the service takes it, a message as a
// receiver should take it, which leaves its objects open (a field added to a message is
// no new version; see docs/extending.md). A schema JSON Schema cannot express
// throws here rather than being published as an empty one: the catalog's tests fail.
const toJsonSchema = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;

/** The catalog under `limits`: the running configuration's, so the bounds shown are enforced. */
export function buildEventCatalog(limits: ContentLimits): EventCatalog {
  return {
    incoming: EVENT_TYPE_LIST.map((type) => ({
      name: type.name,
      version: type.version,
      description: type.description,
      scopes: scopesToPublish(type.name),
      dataSchema: toJsonSchema(type.dataSchema(limits)),
    })),
    outgoing: MESSAGE_TYPES.map((message) => ({
      type: message.type,
      version: message.version,
      description: message.description,
      subscribable: SUBSCRIBABLE_MESSAGE_TYPES.includes(message.type),
      messageSchema: toJsonSchema(message.bodySchema),
      filterFields: [...filterFieldsOf(message.type)],
    })),
  };
}
