// What outgoing webhooks carry: the body every delivery of a message POSTs, signed as is.
import type { Author } from '@ingest/contracts';
import { z } from 'zod';

/** A type of message an endpoint may receive, as the catalog and the OpenAPI document show it. */
export interface MessageType<Type extends string = string, Data extends z.ZodType = z.ZodType> {
  type: Type;
  /** Starts at 1; grows by one when a field is removed, renamed, retyped or changes meaning. */
  version: number;
  description: string;
  /** The body's `data`, as a receiver parses it. */
  dataSchema: Data;
}

/** The authors' and categories' names messages show, read once for a transaction's messages. */
export interface Names {
  authors: Map<string, Author>;
  categories: Map<string, string>;
}

/**
 * An applied change, reported into the outbox by the event type that applied it: the
 * worker writes its message, in the same transaction, for each endpoint subscribed to it.
 */
export interface OutboxEntry {
  type: string;
  eventId: string;
  accountId: string;
  /** The categories whose names the message shows. */
  categoryIds: string[];
  /** The message's `data`, given the names and the time the change was applied. */
  dataOf(names: Names, at: Date): unknown;
}

/**
 * The `data` of a message about one kind of record: `{ <record>: as the public reads show
 * it right after the change, version, eventId }`.
 */
export const changeSchemaOf = <Record extends string, Shown extends z.ZodType>(
  record: Record,
  shown: Shown,
  id: string,
) =>
  z
    .object({
      [record]: shown.meta({
        description: `The ${record} as the public reads show it right after the change (a deleted one: as it was last)`,
      }),
      version: z
        .int()
        .min(1)
        .meta({
          description: `1 when created, one more with every change of the ${record} and its delete: deliveries are not ordered, so drop one older than the version you hold`,
        }),
      eventId: z
        .uuid()
        .meta({ description: 'The incoming event whose applied change this tells of' }),
    } as { [Key in Record]: Shown } & { version: z.ZodInt; eventId: z.ZodUUID })
    .meta({ id });

/** What a message tells of a record's state: whose it is, the names it shows, how it reads. */
export interface Told {
  accountId: string;
  categoryIds: string[];
  shown: (names: Names, at: Date) => object;
}

/**
 * The message types about one kind of record: `tell` says how a state reads. A change's
 * outbox entry carries its `version` (a delete's: one more than the record's last).
 */
export const recordMessages =
  <State, Data extends z.ZodType>(dataSchema: Data, tell: (state: State) => Told) =>
  <Type extends string>(type: Type, note: Pick<MessageType, 'version' | 'description'>) => ({
    type,
    ...note,
    dataSchema,
    entry(eventId: string, state: State, version: number): OutboxEntry {
      const { accountId, categoryIds, shown } = tell(state);
      return {
        type,
        eventId,
        accountId,
        categoryIds,
        dataOf: (names, at) => ({ ...shown(names, at), version, eventId }),
      };
    },
  });

/** The author an account is shown as; every account a message names is read first. */
export function authorOf(names: Names, accountId: string): Author {
  const author = names.authors.get(accountId);
  if (author === undefined) throw new Error(`account ${accountId} was not read`);
  return author;
}

/** The test message of POST /api/webhooks/endpoints/{id}/test: no change tells of it. */
export const PING_MESSAGE = {
  type: 'ping' as const,
  version: 1,
  description: 'A test message, sent only by POST /api/webhooks/endpoints/{id}/test',
  dataSchema: z.object({ endpointId: z.uuid(), url: z.string() }),
} satisfies MessageType;

/** Told to an account's other endpoints when the breaker pauses one of its endpoints. */
export const ENDPOINT_PAUSED_MESSAGE = {
  type: 'endpoint.paused' as const,
  version: 1,
  description:
    "One of the account's endpoints was paused by the breaker: its deliveries wait until it is resumed (POST /api/webhooks/endpoints/{id}/resume). Sent to the account's other endpoints that subscribe to it",
  dataSchema: z.object({
    endpointId: z.uuid(),
    url: z.string(),
    pausedAt: z.iso.datetime(),
    reason: z.string(),
  }),
} satisfies MessageType;

/**
 * The name of a message type's schema among the OpenAPI document's components
 * (`article.created` is `ArticleCreatedMessage`): its `webhooks` refer to them by it.
 */
export const outgoingMessageSchemaId = (type: string): string =>
  `${type
    .split('.')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}Message`;

/** The whole body of a message of `type`: `{ type, timestamp, data }`. */
export const messageSchemaOf = ({ type, dataSchema }: MessageType) =>
  z
    .object({
      type: z.literal(type),
      timestamp: z.iso.datetime().meta({ description: 'When the change was applied' }),
      data: dataSchema,
    })
    .meta({ id: outgoingMessageSchemaId(type) });
