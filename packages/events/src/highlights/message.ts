import { HighlightSchema, type Highlight } from '@ingest/contracts';
import type { Prisma } from '@ingest/db';
import { z } from 'zod';
import { authorOf, CausedBy, type MessageType, type Names, type OutboxEntry } from '../messages.js';

export const HighlightChangeSchema = z
  .object({
    highlight: HighlightSchema.meta({
      description:
        'The highlight as the public reads show it right after the change (a deleted one: as it was last)',
    }),
    version: z.int().min(1).meta({
      description:
        '1 when created, one more with every change of the highlight and its delete: drop a delivery older than the version you hold',
    }),
    ...CausedBy,
  })
  .meta({ id: 'HighlightChange' });

/** A highlight as a change left it, with the article it links to (a slug, a title). */
export type HighlightState = Prisma.HighlightGetPayload<{
  include: { article: { select: { slug: true; title: true } } };
}>;

/** As GET /api/highlights shows it (apps/api/src/services/reads/highlights.ts). */
const highlightOf = (highlight: HighlightState, names: Names): Highlight => ({
  id: highlight.id,
  title: highlight.title,
  videoUrl: highlight.videoUrl,
  thumbnailUrl: highlight.thumbnailUrl,
  durationSeconds: highlight.durationSeconds,
  description: highlight.description,
  tags: highlight.tags,
  article: highlight.article,
  version: highlight.version,
  author: authorOf(names, highlight.accountId),
  createdAt: highlight.createdAt.toISOString(),
  updatedAt: highlight.updatedAt.toISOString(),
});

/** A message type telling of a highlight's change: the highlight as the change left it. */
export function highlightMessage<Type extends string>(
  type: Type,
  note: Pick<MessageType, 'version' | 'description'>,
) {
  return {
    type,
    ...note,
    dataSchema: HighlightChangeSchema,
    /** The change's report: `version` is its own (a delete's is one more than the highlight's). */
    entry: (eventId: string, highlight: HighlightState, version: number): OutboxEntry => ({
      type,
      eventId,
      accountId: highlight.accountId,
      categoryIds: [],
      dataOf: (names) => ({ highlight: highlightOf(highlight, names), version, eventId }),
    }),
  };
}
