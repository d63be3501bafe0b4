import { z } from 'zod';
import {
  DEFAULT_CONTENT_LIMITS,
  SLUG_MAX_CHARS,
  SLUG_PATTERN,
  type ContentLimits,
} from './content-limits.js';
import { storableText } from './safe-text.js';
import type { EventName } from './scopes.js';

// Content is stored exactly as sent: no trimming or rewriting, so that what a read
// returns equals what was sent. Only the category, a reference rather than content, is
// matched ignoring case and surrounding space.

const SlugSchema = z
  .string()
  .max(SLUG_MAX_CHARS)
  .regex(SLUG_PATTERN, 'must be lower-case letters and digits in groups joined by single hyphens');

// An optimistic check: a publisher that read version N sends ifVersion N, and the change
// applies only if nobody changed the article since, rather than silently overwriting.
// Bounded as the column (int4) is: a larger number is no version, and PostgreSQL would
// refuse it as a parameter, failing the statement of every delete sharing it.
const IfVersionSchema = z.int32().min(1).optional().meta({
  description:
    "Apply only if the article is at this version (its `version` in reads, receipts and messages); otherwise the event fails with VERSION_CONFLICT and the receipt's error carries `currentVersion`",
});

const notBlank = (value: string): boolean => value.trim() !== '';

// eslint-disable-next-line no-control-regex -- control characters are exactly what it looks for
const WHITESPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f]/;
function isHttpUrl(value: string): boolean {
  if (WHITESPACE_OR_CONTROL.test(value) || !URL.canParse(value)) return false;
  const { protocol, hostname } = new URL(value);
  return (protocol === 'http:' || protocol === 'https:') && hostname !== '';
}

/** The `data` schema of every event, built for the given limits. */
export function createEventSchemas(limits: ContentLimits = DEFAULT_CONTENT_LIMITS) {
  const text = (max: number) => storableText(0, max);
  const title = storableText(1, limits.titleMaxChars).refine(notBlank, 'must not be blank');
  // Checked, not parsed: z.url() would return the URL trimmed and without tabs or line
  // breaks, and content is stored exactly as sent. A URL has no whitespace anyway.
  const httpUrl = storableText(1, limits.urlMaxChars).refine(
    isHttpUrl,
    'must be an http(s) URL without spaces',
  );
  const category = storableText(1, limits.categoryMaxChars).refine(notBlank, 'must not be blank');
  const body = z
    .array(text(limits.paragraphMaxChars))
    .min(1, 'must have at least one paragraph')
    .max(limits.bodyMaxParagraphs);
  const readMinutes = z.int().min(1).max(limits.readMinutesMax);

  const articleFields = {
    title,
    excerpt: text(limits.excerptMaxChars),
    body,
    cover: httpUrl,
    category,
    readMinutes,
  };

  const articleCreate = z.strictObject({
    title: articleFields.title,
    body: articleFields.body,
    excerpt: articleFields.excerpt.optional(),
    cover: articleFields.cover.optional(),
    category: articleFields.category.optional(),
    readMinutes: articleFields.readMinutes
      .optional()
      .meta({ description: 'Computed from the body (about 200 words a minute) when absent' }),
    slug: SlugSchema.optional().meta({
      description: 'Derived from the title when absent (`-2`, `-3`, ... appended if taken)',
    }),
  });

  // null clears an optional field; readMinutes: null goes back to computing it.
  const changeFields = {
    title: articleFields.title.optional(),
    body: articleFields.body.optional(),
    excerpt: articleFields.excerpt.nullable().optional(),
    cover: articleFields.cover.nullable().optional(),
    category: articleFields.category.nullable().optional(),
    readMinutes: articleFields.readMinutes.nullable().optional(),
    newSlug: SlugSchema.optional(),
  };
  const articleUpdate = z
    .strictObject({ slug: SlugSchema, ifVersion: IfVersionSchema, ...changeFields })
    .refine(
      (data) =>
        Object.keys(changeFields).some(
          (field) => data[field as keyof typeof changeFields] !== undefined,
        ),
      { message: `must change at least one of: ${Object.keys(changeFields).join(', ')}`, path: [] },
    );

  const articleDelete = z.strictObject({ slug: SlugSchema, ifVersion: IfVersionSchema });

  const highlightCreate = z.strictObject({
    title,
    videoUrl: httpUrl,
    thumbnailUrl: httpUrl.optional(),
    durationSeconds: z.int().min(1).max(limits.durationSecondsMax).optional(),
    description: text(limits.descriptionMaxChars).optional(),
    articleSlug: SlugSchema.optional().meta({
      description: 'Links the highlight to one of your articles',
    }),
    tags: z
      .array(storableText(1, limits.tagMaxChars).refine(notBlank, 'must not be blank'))
      .max(limits.tagsMax)
      .optional(),
  });

  return {
    'article.create': articleCreate,
    'article.update': articleUpdate,
    'article.delete': articleDelete,
    'highlight.create': highlightCreate,
  } as const satisfies Record<EventName, z.ZodType>;
}

export type EventSchemas = ReturnType<typeof createEventSchemas>;
export type EventData<Name extends EventName> = z.output<EventSchemas[Name]>;
export type ArticleCreateData = EventData<'article.create'>;
export type ArticleUpdateData = EventData<'article.update'>;
export type ArticleDeleteData = EventData<'article.delete'>;
export type HighlightCreateData = EventData<'highlight.create'>;

const defaultSchemas = createEventSchemas();

/** The request body of POST /api/webhooks/content, for documentation: one variant an event. */
export const ContentEventRequestSchema = z
  .discriminatedUnion('event', [
    z.strictObject({ event: z.literal('article.create'), data: defaultSchemas['article.create'] }),
    z.strictObject({ event: z.literal('article.update'), data: defaultSchemas['article.update'] }),
    z.strictObject({ event: z.literal('article.delete'), data: defaultSchemas['article.delete'] }),
    z.strictObject({
      event: z.literal('highlight.create'),
      data: defaultSchemas['highlight.create'],
    }),
  ])
  .meta({ id: 'ContentEventRequest' });
