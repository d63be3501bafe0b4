import {
  AppError,
  type Article,
  type ArticleList,
  type ArticleListQuery,
  type ArticleSummary,
} from '@ingest/contracts';
import type { ApiDeps } from '../../deps.js';
import { inOneSnapshot } from '../one-snapshot.js';
import { rowsAfter, toPage } from '../pagination.js';

type Deps = Pick<ApiDeps, 'db'>;

// Author and category are selected with the article: Prisma loads each relation for the
// whole page in one batched query, never one query a row. Those are statements of their
// own, hence every read here runs in one snapshot.
const SUMMARY_FIELDS = {
  id: true,
  slug: true,
  title: true,
  excerpt: true,
  cover: true,
  readMinutes: true,
  version: true,
  createdAt: true,
  updatedAt: true,
  category: { select: { name: true } },
  account: { select: { handle: true, name: true } },
} as const;

interface SummaryRow {
  slug: string;
  title: string;
  excerpt: string | null;
  cover: string | null;
  readMinutes: number;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  category: { name: string } | null;
  account: { handle: string; name: string };
}

const presentSummary = (row: SummaryRow): ArticleSummary => ({
  slug: row.slug,
  title: row.title,
  excerpt: row.excerpt,
  cover: row.cover,
  category: row.category?.name ?? null,
  readMinutes: row.readMinutes,
  version: row.version,
  author: { handle: row.account.handle, name: row.account.name },
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/**
 * Articles, newest first, a page at a time. An unknown category or author is not an
 * error: it is a filter that matches nothing.
 */
export async function listArticles(deps: Deps, query: ArticleListQuery): Promise<ArticleList> {
  const rows = await inOneSnapshot(deps, (tx) =>
    tx.article.findMany({
      where: {
        // Keys as the worker stores them: category names trimmed and lower-cased, handles lower-cased.
        ...(query.category === undefined
          ? {}
          : { category: { is: { nameKey: query.category.trim().toLowerCase() } } }),
        ...(query.author === undefined
          ? {}
          : { account: { is: { handle: query.author.trim().toLowerCase() } } }),
        ...rowsAfter(query.cursor, 'createdAt'),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: query.limit + 1,
      select: SUMMARY_FIELDS,
    }),
  );
  return toPage(rows, query.limit, (row) => row.createdAt, presentSummary);
}

export async function getArticle(deps: Deps, slug: string): Promise<Article> {
  const row = await inOneSnapshot(deps, (tx) =>
    tx.article.findUnique({ where: { slug }, select: { ...SUMMARY_FIELDS, body: true } }),
  );
  if (row === null) throw new AppError('NOT_FOUND', 'No article with this slug');
  return { ...presentSummary(row), body: row.body };
}
