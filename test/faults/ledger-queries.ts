// Reads what the service recorded and applied, straight from PostgreSQL: the checks must
// not trust the API they are checking.
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';

export interface LogRow {
  id: string;
  sequence: string;
  event: string | null;
  payload: unknown;
  status: string;
  errorCode: string | null;
}

export interface DbArticle {
  slug: string;
  title: string;
  body: string[];
  excerpt: string | null;
  cover: string | null;
  category: string | null;
  readMinutes: number;
  readMinutesComputed: boolean;
}

export interface AttemptCounts {
  succeeded: number;
  /** Attempts never closed: once the event is finished, none may remain. */
  open: number;
  rows: number;
  counter: number;
  /** Attempts whose worker died (closed when the event finished) or that found it done. */
  interrupted: number;
  duplicates: number;
}

export interface LedgerSnapshot {
  /** The account's WebhookLog rows in acceptance order (the `sequence` column). */
  rows: LogRow[];
  /** Per event: its attempts log, and the attempts counter on its row. */
  attempts: Map<string, AttemptCounts>;
  articles: DbArticle[];
  highlights: Array<{ title: string; articleSlug: string | null }>;
  /** Idempotency-Key -> the event it was claimed for. */
  idempotencyKeys: Map<string, string>;
}

/** Waits until none of the account's events is queued or processing; returns how many still are. */
export async function waitForDrain(
  db: pg.Pool,
  accountId: string,
  timeoutMs: number,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let unfinished = -1;
    try {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_logs
         WHERE account_id = $1 AND status IN ('queued', 'processing')`,
        [accountId],
      );
      unfinished = rows[0]?.n ?? 0;
    } catch {
      // The database may still be coming back from the fault: look again.
    }
    if (unfinished === 0 || Date.now() > deadline) return unfinished;
    await sleep(250);
  }
}

export async function readLedger(db: pg.Pool, accountId: string): Promise<LedgerSnapshot> {
  const [rows, attempts, articles, highlights, keys] = await Promise.all([
    db.query<LogRow>(
      `SELECT id, sequence::text AS sequence, event, payload, status, error->>'code' AS "errorCode"
       FROM webhook_logs WHERE account_id = $1 ORDER BY webhook_logs.sequence`,
      [accountId],
    ),
    db.query<AttemptCounts & { eventId: string }>(
      `SELECT w.id AS "eventId", w.attempts AS counter, count(a.number)::int AS rows,
              count(*) FILTER (WHERE a.outcome = 'succeeded')::int AS succeeded,
              count(*) FILTER (WHERE a.number IS NOT NULL AND a.finished_at IS NULL)::int AS open,
              count(*) FILTER (WHERE a.outcome = 'interrupted')::int AS interrupted,
              count(*) FILTER (WHERE a.outcome = 'duplicate')::int AS duplicates
       FROM webhook_logs w LEFT JOIN event_attempts a ON a.event_id = w.id
       WHERE w.account_id = $1 GROUP BY w.id`,
      [accountId],
    ),
    db.query<DbArticle>(
      `SELECT a.slug, a.title, a.body, a.excerpt, a.cover, c.name_key AS category,
              a.read_minutes AS "readMinutes", a.read_minutes_computed AS "readMinutesComputed"
       FROM articles a LEFT JOIN categories c ON c.id = a.category_id
       WHERE a.account_id = $1`,
      [accountId],
    ),
    db.query<{ title: string; articleSlug: string | null }>(
      `SELECT h.title, a.slug AS "articleSlug"
       FROM highlights h LEFT JOIN articles a ON a.id = h.article_id
       WHERE h.account_id = $1`,
      [accountId],
    ),
    db.query<{ key: string; eventId: string }>(
      `SELECT key, event_id AS "eventId" FROM idempotency_keys WHERE account_id = $1`,
      [accountId],
    ),
  ]);
  return {
    rows: rows.rows,
    attempts: new Map(attempts.rows.map(({ eventId, ...counts }) => [eventId, counts])),
    articles: articles.rows,
    highlights: highlights.rows,
    idempotencyKeys: new Map(keys.rows.map((row) => [row.key, row.eventId])),
  };
}
