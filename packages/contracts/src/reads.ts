// Schemas of the public read endpoints (GET /api/articles, /api/highlights, /api/categories).
import { z } from 'zod';
import { SLUG_MAX_CHARS, SLUG_PATTERN } from './content-limits.js';
import { PageQueryFields, pageOf } from './pagination.js';
import { storableText } from './safe-text.js';

// Content fields are plain strings: reads return them exactly as they were sent.

// List queries are strict: a mistyped filter (`?categroy=`) must not quietly answer
// with everything unfiltered.

export const ArticleListQuerySchema = z.strictObject({
  // Generous rather than the configured category limit: a filter only matches or not.
  category: storableText(0, 1_000)
    .optional()
    .meta({ description: 'Category name, matched ignoring case and surrounding spaces' }),
  author: storableText(0, 100)
    .optional()
    .meta({ description: "Author's handle, matched ignoring case" }),
  ...PageQueryFields,
});
export type ArticleListQuery = z.infer<typeof ArticleListQuerySchema>;

export const HighlightListQuerySchema = z.strictObject(PageQueryFields);
export type HighlightListQuery = z.infer<typeof HighlightListQuerySchema>;

export const ArticleSlugParamsSchema = z.object({
  slug: z
    .string()
    .max(SLUG_MAX_CHARS)
    .regex(
      SLUG_PATTERN,
      'must be lower-case letters and digits in groups joined by single hyphens',
    ),
});

export const AuthorSchema = z
  .object({ handle: z.string(), name: z.string() })
  .meta({ id: 'Author' });
export type Author = z.infer<typeof AuthorSchema>;

export const ArticleSummarySchema = z
  .object({
    slug: z.string(),
    title: z.string(),
    excerpt: z.string().nullable(),
    cover: z.string().nullable(),
    category: z.string().nullable().meta({ description: "The category's display name" }),
    readMinutes: z.int(),
    version: z.int().min(1).meta({
      description: '1 when created, one more with every update: send it back as `ifVersion`',
    }),
    author: AuthorSchema,
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'ArticleSummary' });
export type ArticleSummary = z.infer<typeof ArticleSummarySchema>;

export const ArticleSchema = ArticleSummarySchema.extend({
  body: z.array(z.string()).meta({ description: 'Paragraphs, in order' }),
}).meta({ id: 'Article' });
export type Article = z.infer<typeof ArticleSchema>;

export const ArticleListSchema = pageOf(ArticleSummarySchema).meta({ id: 'ArticleList' });
export type ArticleList = z.infer<typeof ArticleListSchema>;

export const HighlightSchema = z
  .object({
    id: z.uuid(),
    title: z.string(),
    videoUrl: z.string(),
    thumbnailUrl: z.string().nullable(),
    durationSeconds: z.int().nullable(),
    description: z.string().nullable(),
    tags: z.array(z.string()),
    article: z
      .object({ slug: z.string(), title: z.string() })
      .nullable()
      .meta({ description: 'The linked article; null when none, or when it was deleted' }),
    version: z.int().min(1).meta({
      description: '1 when created, one more with every update: send it back as `ifVersion`',
    }),
    author: AuthorSchema,
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Highlight' });
export type Highlight = z.infer<typeof HighlightSchema>;

export const HighlightListSchema = pageOf(HighlightSchema).meta({ id: 'HighlightList' });
export type HighlightList = z.infer<typeof HighlightListSchema>;

export const CategorySchema = z
  .object({
    name: z.string(),
    articleCount: z.int().min(0),
  })
  .meta({ id: 'Category' });
export type Category = z.infer<typeof CategorySchema>;

export const CategoryListSchema = z
  .object({ items: z.array(CategorySchema).meta({ description: 'Every category, by name' }) })
  .meta({ id: 'CategoryList' });
export type CategoryList = z.infer<typeof CategoryListSchema>;
