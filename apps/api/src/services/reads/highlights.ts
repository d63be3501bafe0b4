import type { Highlight, HighlightList, HighlightListQuery } from '@ingest/contracts';
import type { ApiDeps } from '../../deps.js';
import { inOneSnapshot } from '../one-snapshot.js';
import { rowsAfter, toPage } from '../pagination.js';

type Deps = Pick<ApiDeps, 'db'>;

interface HighlightRow {
  id: string;
  title: string;
  videoUrl: string;
  thumbnailUrl: string | null;
  durationSeconds: number | null;
  description: string | null;
  tags: string[];
  version: number;
  createdAt: Date;
  updatedAt: Date;
  article: { slug: string; title: string } | null;
  account: { handle: string; name: string };
}

const presentHighlight = (row: HighlightRow): Highlight => ({
  id: row.id,
  title: row.title,
  videoUrl: row.videoUrl,
  thumbnailUrl: row.thumbnailUrl,
  durationSeconds: row.durationSeconds,
  description: row.description,
  tags: row.tags,
  // A deleted article leaves its highlights unlinked (articleId set null), hence null here.
  article: row.article === null ? null : { slug: row.article.slug, title: row.article.title },
  version: row.version,
  author: { handle: row.account.handle, name: row.account.name },
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** Highlights, newest first, a page at a time, each with its article and author. */
export async function listHighlights(
  deps: Deps,
  query: HighlightListQuery,
): Promise<HighlightList> {
  // The article and the author are read by statements of their own: one snapshot.
  const rows = await inOneSnapshot(deps, (tx) =>
    tx.highlight.findMany({
      where: rowsAfter(query.cursor, 'createdAt'),
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: query.limit + 1,
      select: {
        id: true,
        title: true,
        videoUrl: true,
        thumbnailUrl: true,
        durationSeconds: true,
        description: true,
        tags: true,
        version: true,
        createdAt: true,
        updatedAt: true,
        article: { select: { slug: true, title: true } },
        account: { select: { handle: true, name: true } },
      },
    }),
  );
  return toPage(rows, query.limit, (row) => row.createdAt, presentHighlight);
}
