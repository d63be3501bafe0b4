import { AppError, failed, succeeded, type ContentLimits } from '@ingest/contracts';
import { z } from 'zod';
import { ownEntryOf, readOwnArticles, type StoredArticle } from './articles/rows.js';
import type { ApplyScope, Change, EventType, Outcomes } from './event-type.js';
import { changeOf, ifVersionField, perLimits } from './fields.js';
import { highlightFields } from './highlights/fields.js';
import { highlightMessage, type HighlightState } from './highlights/message.js';
import { keyOf, readOwnHighlights } from './highlights/rows.js';
import { versionConflict } from './version-check.js';

const dataSchema = perLimits((limits: ContentLimits) => {
  const fields = highlightFields(limits);
  return changeOf(
    {
      id: z.uuid().meta({ description: "The highlight's id: its create's receipt's result.id" }),
      ifVersion: ifVersionField('highlight'),
    },
    {
      title: fields.title.optional(),
      videoUrl: fields.videoUrl.optional(),
      thumbnailUrl: fields.thumbnailUrl.nullable().optional(),
      durationSeconds: fields.durationSeconds.nullable().optional(),
      description: fields.description.nullable().optional(),
      articleSlug: fields.articleSlug
        .nullable()
        .optional()
        .meta({ description: 'Links it to another of your articles; null unlinks it' }),
      tags: fields.tags.optional(),
    },
  );
});

type Update = Change<z.output<ReturnType<typeof dataSchema>>>;

const message = highlightMessage('highlight.updated', {
  version: 1,
  description: 'A highlight was changed: the highlight right after this change',
});

const notFound = (id: string) =>
  failed(new AppError('HIGHLIGHT_NOT_FOUND', `You have no highlight ${id}`));

/** The line of a highlight's events: its id, apart from every slug. */
export const highlightLine = (id: string) => `highlight:${id}`;

/**
 * Reads every highlight the updates address, and every article they link to, in one
 * statement each; applies each update in order to the state the ones before it left; and
 * writes each changed highlight once. An update that fails its check changes nothing.
 */
async function apply({ tx, outbox }: ApplyScope, changes: Update[]): Promise<Outcomes> {
  const found = await readOwnHighlights(
    tx,
    changes.map(({ accountId, data }) => ({ accountId, id: data.id })),
  );
  const linked = changes.flatMap(({ accountId, data }) =>
    typeof data.articleSlug === 'string' ? [{ accountId, slug: data.articleSlug }] : [],
  );
  const articles =
    linked.length === 0 ? new Map<string, StoredArticle>() : await readOwnArticles(tx, linked);
  const changed = new Map<string, HighlightState>();
  const outcomes: Outcomes = new Map();
  for (const { eventId, accountId, data } of changes) {
    const key = keyOf({ accountId, id: data.id });
    const state = changed.get(key) ?? found.get(key);
    if (state === undefined) {
      outcomes.set(eventId, notFound(data.id));
      continue;
    }
    const conflict = versionConflict(`highlight ${data.id}`, data.ifVersion, state.version);
    const slug = data.articleSlug;
    const article = typeof slug === 'string' ? ownEntryOf(articles, { accountId, slug }) : null;
    if (conflict !== undefined || article === undefined) {
      const missing = new AppError('ARTICLE_NOT_FOUND', `You have no article "${slug}"`);
      outcomes.set(eventId, failed(conflict ?? missing));
      continue;
    }
    const next: HighlightState = {
      ...state,
      title: data.title ?? state.title,
      videoUrl: data.videoUrl ?? state.videoUrl,
      thumbnailUrl: data.thumbnailUrl === undefined ? state.thumbnailUrl : data.thumbnailUrl,
      durationSeconds:
        data.durationSeconds === undefined ? state.durationSeconds : data.durationSeconds,
      description: data.description === undefined ? state.description : data.description,
      tags: data.tags ?? state.tags,
      articleId: article === null ? (slug === null ? null : state.articleId) : article.id,
      article:
        article === null
          ? slug === null
            ? null
            : state.article
          : { slug: article.slug, title: article.title },
      version: state.version + 1,
      updatedAt: new Date(),
    };
    changed.set(key, next);
    outbox.push(message.entry(eventId, next, next.version));
    outcomes.set(eventId, succeeded({ type: 'highlight', id: next.id, version: next.version }));
  }
  for (const { id, article: _, accountId: __, createdAt: ___, ...row } of changed.values()) {
    await tx.highlight.update({ where: { id }, data: row });
  }
  return outcomes;
}

export const highlightUpdate = {
  name: 'highlight.update',
  scope: 'highlight:update',
  version: 1,
  description: 'Change fields of one of your highlights, found by id; null clears a field',
  dataSchema,
  example: { id: '0192f0c4-6b1a-7c3e-9a51-2d8e4f6a7b90', title: 'A Friday deploy in 60 seconds' },
  orderKeys: (data) =>
    typeof data.articleSlug === 'string'
      ? [highlightLine(data.id), data.articleSlug]
      : [highlightLine(data.id)],
  message,
  apply,
} satisfies EventType<'highlight.update', Update['data'], 'highlight:update'>;
