import { Prisma } from '@ingest/db';
import type { Tx } from '../event-type.js';

/** An articles row as the worker writes it; created_at and updated_at take their defaults. */
export interface ArticleRow {
  id: string;
  slug: string;
  accountId: string;
  title: string;
  excerpt: string | null;
  body: string[];
  cover: string | null;
  categoryId: string | null;
  readMinutes: number;
  readMinutesComputed: boolean;
  /** 1 when created, one more with every change: see the schema. */
  version: number;
}

/** An articles row as read back, with the timestamps the database set. */
export interface StoredArticle extends ArticleRow {
  createdAt: Date;
  updatedAt: Date;
}

const STORED_COLUMNS = Prisma.sql`a.id, a.slug, a.account_id AS "accountId", a.title, a.excerpt,
  a.body, a.cover, a.category_id AS "categoryId", a.read_minutes AS "readMinutes",
  a.read_minutes_computed AS "readMinutesComputed", a.version, a.created_at AS "createdAt",
  a.updated_at AS "updatedAt"`;

/**
 * Inserts articles in one statement and says which rows (by id) were inserted; a row
 * whose slug is taken is skipped (ON CONFLICT DO NOTHING: an answer, not an aborted
 * transaction), and so is a later row of the same call with the same slug. Raw SQL
 * because Prisma's `createMany` cannot say which rows it skipped. Every article the
 * worker creates, changes or deletes is written in this file.
 */
export async function insertArticles(tx: Tx, rows: ArticleRow[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const column = <Key extends keyof ArticleRow>(key: Key) => rows.map((row) => row[key]);
  const inserted = await tx.$queryRaw<Array<{ id: string }>>`
    INSERT INTO articles (id, slug, account_id, title, excerpt, body, cover, category_id,
                          read_minutes, read_minutes_computed, version)
    SELECT r.id, r.slug, r.account_id, r.title, r.excerpt,
           ARRAY(SELECT jsonb_array_elements_text(r.body)), r.cover, r.category_id,
           r.read_minutes, r.read_minutes_computed, r.version
    FROM unnest(${column('id')}::uuid[], ${column('slug')}::text[],
                ${column('accountId')}::uuid[], ${column('title')}::text[],
                ${column('excerpt')}::text[],
                ${rows.map((row) => JSON.stringify(row.body))}::text[]::jsonb[],
                ${column('cover')}::text[], ${column('categoryId')}::uuid[],
                ${column('readMinutes')}::int[], ${column('readMinutesComputed')}::boolean[],
                ${column('version')}::int[])
         AS r(id, slug, account_id, title, excerpt, body, cover, category_id, read_minutes,
              read_minutes_computed, version)
    ON CONFLICT (slug) DO NOTHING
    RETURNING id`;
  return new Set(inserted.map((row) => row.id));
}

/** An account's article, addressed as events address it. */
export interface OwnSlug {
  accountId: string;
  slug: string;
}

const keyOf = ({ accountId, slug }: OwnSlug) => `${accountId}/${slug}`;

/**
 * The articles these accounts own under these slugs, in one statement, by `keyOf`.
 * Another account's article is missing from the answer exactly like a missing one.
 */
export async function readOwnArticles(
  tx: Tx,
  wanted: OwnSlug[],
): Promise<Map<string, StoredArticle>> {
  const rows = await tx.$queryRaw<StoredArticle[]>`
    SELECT ${STORED_COLUMNS}
    FROM articles a
    JOIN unnest(${wanted.map((w) => w.accountId)}::uuid[], ${wanted.map((w) => w.slug)}::text[])
      AS w(account_id, slug) ON a.account_id = w.account_id AND a.slug = w.slug`;
  return new Map(rows.map((row) => [keyOf(row), row]));
}

/** The entry for `wanted` in a map keyed as readOwnArticles and deleteOwnArticles key theirs. */
export const ownEntryOf = <Value>(found: Map<string, Value>, wanted: OwnSlug): Value | undefined =>
  found.get(keyOf(wanted));

/**
 * Writes new states of existing articles, one statement for all. `bodyChanged` false
 * keeps the stored body as it is, rather than writing the same paragraphs again. The slug
 * is written as given: a rename that collides fails the whole statement (unique index).
 */
export async function updateArticles(
  tx: Tx,
  rows: Array<ArticleRow & { bodyChanged: boolean }>,
): Promise<void> {
  if (rows.length === 0) return;
  const column = <Key extends keyof ArticleRow>(key: Key) => rows.map((row) => row[key]);
  await tx.$executeRaw`
    UPDATE articles a
    SET slug = u.slug, title = u.title, excerpt = u.excerpt,
        body = CASE WHEN u.body IS NULL THEN a.body
                    ELSE ARRAY(SELECT jsonb_array_elements_text(u.body)) END,
        cover = u.cover, category_id = u.category_id, read_minutes = u.read_minutes,
        read_minutes_computed = u.read_minutes_computed, version = u.version,
        updated_at = now()
    FROM unnest(${column('id')}::uuid[], ${column('slug')}::text[], ${column('title')}::text[],
                ${column('excerpt')}::text[],
                ${rows.map((row) => (row.bodyChanged ? JSON.stringify(row.body) : null))}::text[]::jsonb[],
                ${column('cover')}::text[], ${column('categoryId')}::uuid[],
                ${column('readMinutes')}::int[], ${column('readMinutesComputed')}::boolean[],
                ${column('version')}::int[])
         AS u(id, slug, title, excerpt, body, cover, category_id, read_minutes,
              read_minutes_computed, version)
    WHERE a.id = u.id`;
}

/**
 * Deletes the accounts' articles under these slugs, one statement; answers what it
 * deleted, as it was last. A row with `ifVersion` is deleted only at that version.
 */
export async function deleteOwnArticles(
  tx: Tx,
  wanted: Array<OwnSlug & { ifVersion?: number | undefined }>,
): Promise<Map<string, StoredArticle>> {
  const rows = await tx.$queryRaw<StoredArticle[]>`
    DELETE FROM articles a
    USING unnest(${wanted.map((w) => w.accountId)}::uuid[], ${wanted.map((w) => w.slug)}::text[],
                 ${wanted.map((w) => w.ifVersion ?? null)}::int[])
      AS w(account_id, slug, if_version)
    WHERE a.account_id = w.account_id AND a.slug = w.slug
      AND (w.if_version IS NULL OR a.version = w.if_version)
    RETURNING ${STORED_COLUMNS}`;
  return new Map(rows.map((row) => [keyOf(row), row]));
}
