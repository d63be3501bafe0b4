import type { CategoryList } from '@ingest/contracts';
import type { ApiDeps } from '../../deps.js';

type Deps = Pick<ApiDeps, 'db'>;

/**
 * Every category with its article count, empty ones included: categories are made on
 * first use and outlive their articles. Ordered by `nameKey`, the lower-cased name, so
 * the order ignores case; the count is one grouped subquery, not a query a category.
 */
export async function listCategories(deps: Deps): Promise<CategoryList> {
  const rows = await deps.db.prisma.category.findMany({
    orderBy: { nameKey: 'asc' },
    select: { name: true, _count: { select: { articles: true } } },
  });
  return { items: rows.map((row) => ({ name: row.name, articleCount: row._count.articles })) };
}
