// What outgoing webhooks carry: the body every delivery of a message POSTs, signed as is.
import { z } from 'zod';
import { ArticleSchema, HighlightSchema } from './reads.js';

const CausedBy = {
  eventId: z.uuid().meta({ description: 'The incoming event whose applied change this tells of' }),
};

export const ArticleChangeSchema = z
  .object({
    article: ArticleSchema.meta({
      description:
        'The article as the public reads show it right after the change (a deleted one: as it was last)',
    }),
    version: z.int().min(1).meta({
      description:
        '1 when created, one more with every change of the article and its delete: deliveries are not ordered, so drop one older than the version you hold',
    }),
    ...CausedBy,
  })
  .meta({ id: 'ArticleChange' });
export type ArticleChange = z.infer<typeof ArticleChangeSchema>;

export const HighlightChangeSchema = z
  .object({ highlight: HighlightSchema, ...CausedBy })
  .meta({ id: 'HighlightChange' });
export type HighlightChange = z.infer<typeof HighlightChangeSchema>;

/**
 * The name of a message type's schema among the OpenAPI document's components
 * (`article.created` is `ArticleCreatedMessage`): its `webhooks` refer to them by it.
 */
export const outgoingMessageSchemaId = (type: string): string =>
  `${type
    .split('.')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}Message`;

const envelope = <Type extends string, Data extends z.ZodType>(type: Type, data: Data) =>
  z
    .object({
      type: z.literal(type),
      timestamp: z.iso.datetime().meta({ description: 'When the change was applied' }),
      data,
    })
    .meta({ id: outgoingMessageSchemaId(type) });

/** A message of any type, as a receiver parses it (`type` tells which). */
export const OutgoingMessageSchema = z
  .discriminatedUnion('type', [
    envelope('article.created', ArticleChangeSchema),
    envelope('article.updated', ArticleChangeSchema),
    envelope('article.deleted', ArticleChangeSchema),
    envelope('highlight.created', HighlightChangeSchema),
    envelope('ping', z.object({ endpointId: z.uuid(), url: z.string() })),
  ])
  .meta({ id: 'OutgoingMessage' });
export type OutgoingMessage = z.infer<typeof OutgoingMessageSchema>;
/** Every type of message an endpoint can receive: the subscribable ones, and `ping`. */
export type OutgoingMessageType = OutgoingMessage['type'];
