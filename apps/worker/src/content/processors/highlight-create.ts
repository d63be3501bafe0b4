import { v7 as uuidv7 } from 'uuid';
import type { EventProcessor } from './catalog.js';
import { findOwnArticle } from './find-own-article.js';

export const highlightCreate: EventProcessor<'highlight.create'> = {
  async apply({ tx, outbox }, { eventId, accountId, data }) {
    const article =
      data.articleSlug === undefined ? null : await findOwnArticle(tx, accountId, data.articleSlug);
    const id = uuidv7();
    const highlight = await tx.highlight.create({
      data: {
        id,
        accountId,
        articleId: article?.id ?? null,
        title: data.title,
        videoUrl: data.videoUrl,
        thumbnailUrl: data.thumbnailUrl ?? null,
        durationSeconds: data.durationSeconds ?? null,
        description: data.description ?? null,
        tags: data.tags ?? [],
      },
    });
    outbox.push({
      type: 'highlight.created',
      eventId,
      highlight: {
        ...highlight,
        article: article === null ? null : { slug: article.slug, title: article.title },
      },
    });
    return { type: 'highlight', id };
  },
};
