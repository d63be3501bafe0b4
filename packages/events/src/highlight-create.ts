import { AppError, failed, succeeded, type ContentLimits } from '@ingest/contracts';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { ownEntryOf, readOwnArticles, type StoredArticle } from './articles/rows.js';
import type { ApplyScope, Change, EventType, Outcomes } from './event-type.js';
import { perLimits } from './fields.js';
import { highlightFields } from './highlights/fields.js';
import { highlightMessage } from './highlights/message.js';

const dataSchema = perLimits((limits: ContentLimits) =>
  z.strictObject(highlightFields(limits)).partial().required({ title: true, videoUrl: true }),
);

type Create = Change<z.output<ReturnType<typeof dataSchema>>>;

const message = highlightMessage('highlight.created', {
  version: 1,
  description: 'A highlight was created',
});

/**
 * Creates the highlights one by one, each linked to the article it names, read for all at
 * once: another account's article is missing exactly like one that does not exist.
 */
async function apply({ tx, outbox }: ApplyScope, changes: Create[]): Promise<Outcomes> {
  const linked = changes.flatMap(({ accountId, data }) =>
    data.articleSlug === undefined ? [] : [{ accountId, slug: data.articleSlug }],
  );
  const articles =
    linked.length === 0 ? new Map<string, StoredArticle>() : await readOwnArticles(tx, linked);
  const outcomes: Outcomes = new Map();
  for (const { eventId, accountId, data } of changes) {
    const slug = data.articleSlug;
    const article = slug === undefined ? null : (ownEntryOf(articles, { accountId, slug }) ?? null);
    if (slug !== undefined && article === null) {
      outcomes.set(
        eventId,
        failed(new AppError('ARTICLE_NOT_FOUND', `You have no article "${slug}"`)),
      );
      continue;
    }
    const highlight = await tx.highlight.create({
      data: {
        id: uuidv7(),
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
    const link = article === null ? null : { slug: article.slug, title: article.title };
    outbox.push(message.entry(eventId, { ...highlight, article: link }, highlight.version));
    outcomes.set(eventId, succeeded({ type: 'highlight', id: highlight.id, version: 1 }));
  }
  return outcomes;
}

export const highlightCreate = {
  name: 'highlight.create',
  scope: 'highlight:create',
  version: 1,
  description: 'Create a video highlight, optionally linked to one of your articles',
  dataSchema,
  example: {
    title: 'A Friday deploy in 90 seconds',
    videoUrl: 'https://video.example.com/friday-deploy.mp4',
    thumbnailUrl: 'https://images.example.com/friday-deploy.jpg',
    durationSeconds: 90,
    articleSlug: 'how-we-ship-on-fridays',
    tags: ['deploys'],
  },
  orderKeys: (data) => (data.articleSlug === undefined ? [] : [data.articleSlug]),
  message,
  apply,
} satisfies EventType<'highlight.create', Create['data'], 'highlight:create'>;
