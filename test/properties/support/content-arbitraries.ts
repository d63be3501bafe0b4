import { type EventName } from '@ingest/events';
import fc from 'fast-check';
import {
  hostileBody,
  hostileIfVersion,
  hostileReadMinutes,
  hostileSlug,
  hostileText,
  hostileUrl,
  LIMITS,
  nonBlankText,
  validBody,
  validIfVersion,
  validReadMinutes,
  validSlug,
  validUrl,
} from './content-fields.js';
import { hostileValue, numberAround, textWithin } from './hostile-values.js';
import { nearValid, type Fields } from './mutations.js';

const articleFields = {
  title: nonBlankText(LIMITS.titleMaxChars),
  body: validBody,
  excerpt: textWithin(0, LIMITS.excerptMaxChars),
  cover: validUrl,
  category: nonBlankText(LIMITS.categoryMaxChars),
  readMinutes: validReadMinutes,
};

const hostileArticleFields = {
  title: hostileText(1, LIMITS.titleMaxChars),
  body: hostileBody,
  excerpt: hostileText(0, LIMITS.excerptMaxChars),
  cover: hostileUrl,
  category: hostileText(1, LIMITS.categoryMaxChars),
  readMinutes: hostileReadMinutes,
};

/** Valid article.create data; `slug` as given (a unique one for round trips). */
export const validArticleCreate = (slug: fc.Arbitrary<string> = validSlug): fc.Arbitrary<Fields> =>
  fc.record({ ...articleFields, slug }, { requiredKeys: ['title', 'body'] });

/** Valid article.update data: a slug, and changes (null clears); at times none at all. */
const validArticleUpdate = fc.record(
  {
    slug: validSlug,
    ifVersion: validIfVersion,
    title: articleFields.title,
    body: articleFields.body,
    excerpt: fc.option(articleFields.excerpt),
    cover: fc.option(articleFields.cover),
    category: fc.option(articleFields.category),
    readMinutes: fc.option(articleFields.readMinutes),
    newSlug: validSlug,
  },
  { requiredKeys: ['slug'] },
);

const highlightFields = {
  title: nonBlankText(LIMITS.titleMaxChars),
  videoUrl: validUrl,
  thumbnailUrl: validUrl,
  durationSeconds: fc.integer({ min: 1, max: LIMITS.durationSecondsMax }),
  description: textWithin(0, LIMITS.descriptionMaxChars),
  articleSlug: validSlug,
  tags: fc.array(nonBlankText(LIMITS.tagMaxChars), { maxLength: LIMITS.tagsMax }),
};

/** Valid highlight.create data; `articleSlug` as given (one of the publisher's articles). */
export const validHighlightCreate = (
  articleSlug: fc.Arbitrary<string> = validSlug,
): fc.Arbitrary<Fields> =>
  fc.record({ ...highlightFields, articleSlug }, { requiredKeys: ['title', 'videoUrl'] });

const hostileTags = fc.oneof(
  fc.array(nonBlankText(LIMITS.tagMaxChars), {
    minLength: LIMITS.tagsMax + 1,
    maxLength: LIMITS.tagsMax + 3,
  }),
  fc.array(hostileText(1, LIMITS.tagMaxChars), { minLength: 1, maxLength: 3 }),
  hostileValue,
);

/** Valid highlight.update data: an id, and changes (null clears); at times none at all. */
const validHighlightUpdate = fc.record(
  {
    id: fc.uuid(),
    ifVersion: validIfVersion,
    title: highlightFields.title,
    videoUrl: highlightFields.videoUrl,
    thumbnailUrl: fc.option(highlightFields.thumbnailUrl),
    durationSeconds: fc.option(highlightFields.durationSeconds),
    description: fc.option(highlightFields.description),
    articleSlug: fc.option(highlightFields.articleSlug),
    tags: highlightFields.tags,
  },
  { requiredKeys: ['id'] },
);

const hostileHighlightFields = {
  title: hostileText(1, LIMITS.titleMaxChars),
  videoUrl: hostileUrl,
  thumbnailUrl: hostileUrl,
  durationSeconds: fc.oneof(numberAround(1, LIMITS.durationSecondsMax), hostileValue),
  description: hostileText(0, LIMITS.descriptionMaxChars),
  articleSlug: hostileSlug,
  tags: hostileTags,
};

const hostileId = fc.oneof(fc.string({ maxLength: 40 }), hostileValue);

/** Data near the valid data of each event: valid as it is, or broken one way or several. */
export const nearValidData: Record<EventName, fc.Arbitrary<unknown>> = {
  'article.create': nearValid(validArticleCreate(), { ...hostileArticleFields, slug: hostileSlug }),
  'article.update': nearValid(validArticleUpdate, {
    ...hostileArticleFields,
    slug: hostileSlug,
    ifVersion: hostileIfVersion,
    newSlug: hostileSlug,
  }),
  'article.delete': nearValid(
    fc.record({ slug: validSlug, ifVersion: validIfVersion }, { requiredKeys: ['slug'] }),
    { slug: hostileSlug, ifVersion: hostileIfVersion },
  ),
  'highlight.create': nearValid(validHighlightCreate(), hostileHighlightFields),
  'highlight.update': nearValid(validHighlightUpdate, {
    ...hostileHighlightFields,
    id: hostileId,
    ifVersion: hostileIfVersion,
  }),
  'highlight.delete': nearValid(
    fc.record({ id: fc.uuid(), ifVersion: validIfVersion }, { requiredKeys: ['id'] }),
    { id: hostileId, ifVersion: hostileIfVersion },
  ),
};
