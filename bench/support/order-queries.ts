// What the hot-slugs phase reads back from the database: the events of one account
// since a point in the log (`sequence`, the acceptance order), how far they got, per
// slug, and whether they were applied in acceptance order.
import type pg from 'pg';

/** One account's events recorded after `after` (a `sequence` read before sending them). */
export interface EventScope {
  after: string;
  accountId: string;
}

const IN_SCOPE = 'sequence > $1::bigint AND account_id = $2::uuid';
const scopeValues = (scope: EventScope) => [scope.after, scope.accountId];

/** The last `sequence` recorded so far (0 when none): events sent next come after it. */
export async function lastSequence(db: pg.Pool): Promise<string> {
  const { rows } = await db.query<{ last: string }>(
    'SELECT coalesce(max(sequence), 0)::text AS last FROM webhook_logs',
  );
  return rows[0]?.last ?? '0';
}

export interface EventCounts {
  recorded: number;
  finished: number;
  failed: number;
}

export async function eventCounts(db: pg.Pool, scope: EventScope): Promise<EventCounts> {
  const { rows } = await db.query<EventCounts>(
    `SELECT count(*)::int AS recorded,
       count(*) FILTER (WHERE status IN ('succeeded', 'failed'))::int AS finished,
       count(*) FILTER (WHERE status = 'failed')::int AS failed
     FROM webhook_logs WHERE ${IN_SCOPE}`,
    scopeValues(scope),
  );
  return rows[0] ?? { recorded: 0, finished: 0, failed: 0 };
}

/** When the scope's last event was applied (`finished_at`, epoch ms); NaN when none was. */
export async function lastFinishedAt(db: pg.Pool, scope: EventScope): Promise<number> {
  const { rows } = await db.query<{ last: Date | null }>(
    `SELECT max(finished_at) AS last FROM webhook_logs WHERE ${IN_SCOPE}`,
    scopeValues(scope),
  );
  return rows[0]?.last?.getTime() ?? Number.NaN;
}

/** One slug's updates; times in epoch milliseconds, `lastFinished` NaN when none applied. */
export interface SlugProgress {
  slug: string;
  accepted: number;
  /** Finished (succeeded or failed) by the cutoff. */
  applied: number;
  firstReceived: number;
  lastReceived: number;
  lastFinished: number;
}

/**
 * Per slug named by the scope's `article.update` events: how many were applied by
 * `cutoff` (the end of the wait; later ones count as not applied), and when the first
 * was received, the last received and the last applied.
 */
export async function slugProgress(
  db: pg.Pool,
  scope: EventScope,
  cutoff: Date,
): Promise<SlugProgress[]> {
  const { rows } = await db.query<{
    slug: string;
    accepted: number;
    applied: number;
    first_received: number;
    last_received: number;
    last_finished: number | null;
  }>(
    `SELECT payload->>'slug' AS slug, count(*)::int AS accepted,
       count(*) FILTER (WHERE finished_at <= $3)::int AS applied,
       extract(epoch FROM min(received_at)) * 1000 AS first_received,
       extract(epoch FROM max(received_at)) * 1000 AS last_received,
       extract(epoch FROM max(finished_at) FILTER (WHERE finished_at <= $3)) * 1000 AS last_finished
     FROM webhook_logs WHERE ${IN_SCOPE} AND event = 'article.update'
     GROUP BY 1`,
    [...scopeValues(scope), cutoff],
  );
  return rows.map((row) => ({
    slug: row.slug,
    accepted: row.accepted,
    applied: row.applied,
    firstReceived: Number(row.first_received),
    lastReceived: Number(row.last_received),
    lastFinished: row.last_finished === null ? Number.NaN : Number(row.last_finished),
  }));
}

export interface UpdateLag {
  events: number;
  p50Ms: number;
  p99Ms: number;
}

/** `finished_at - received_at` of the scope's updates applied by `cutoff`. */
export async function updateLag(db: pg.Pool, scope: EventScope, cutoff: Date): Promise<UpdateLag> {
  const { rows } = await db.query<{ events: number; p50: number | null; p99: number | null }>(
    `SELECT count(*)::int AS events,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY lag) AS p50,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY lag) AS p99
     FROM (SELECT extract(epoch FROM finished_at - received_at) * 1000 AS lag
           FROM webhook_logs
           WHERE ${IN_SCOPE} AND event = 'article.update' AND finished_at <= $3) AS lags`,
    [...scopeValues(scope), cutoff],
  );
  const row = rows[0];
  return { events: row?.events ?? 0, p50Ms: row?.p50 ?? Number.NaN, p99Ms: row?.p99 ?? Number.NaN };
}

export interface OrderViolations {
  /**
   * Updates applied before an earlier update (by `sequence`) of the same slug: one
   * finished earlier than its predecessor, or finished while its predecessor is not.
   */
  outOfOrder: number;
  /** Updates that failed: each named an article of its own account that existed. */
  failed: number;
  /** Articles whose title is not that of their last applied update (by `sequence`). */
  wrongTitle: number;
}

/**
 * Whether the scope's updates were applied in acceptance order. Read with no worker
 * running, so that nothing changes between the statements. Two updates of one slug may
 * share a `finished_at` (one transaction applying both, in order): order asks only that
 * it never decreases along `sequence`. An update not finished counts as finishing at
 * infinity, so any later one that did finish is out of order.
 */
export async function orderViolations(db: pg.Pool, scope: EventScope): Promise<OrderViolations> {
  const values = scopeValues(scope);
  const { rows } = await db.query<{ out_of_order: number; failed: number }>(
    `SELECT count(*) FILTER (WHERE previous > finished)::int AS out_of_order,
       count(*) FILTER (WHERE status = 'failed')::int AS failed
     FROM (SELECT status, coalesce(finished_at, 'infinity') AS finished,
             lag(coalesce(finished_at, 'infinity'))
               OVER (PARTITION BY payload->>'slug' ORDER BY sequence) AS previous
           FROM webhook_logs WHERE ${IN_SCOPE} AND event = 'article.update') AS pairs`,
    values,
  );
  // The last applied update of each slug, against the article as it stands.
  const titles = await db.query<{ wrong: number }>(
    `SELECT count(*)::int AS wrong
     FROM (SELECT DISTINCT ON (payload->>'slug') payload->>'slug' AS slug,
             payload->>'title' AS title
           FROM webhook_logs
           WHERE ${IN_SCOPE} AND event = 'article.update' AND status = 'succeeded'
           ORDER BY payload->>'slug', sequence DESC) AS last
     LEFT JOIN articles a ON a.slug = last.slug
     WHERE a.title IS DISTINCT FROM last.title`,
    values,
  );
  return {
    outOfOrder: rows[0]?.out_of_order ?? 0,
    failed: rows[0]?.failed ?? 0,
    wrongTitle: titles.rows[0]?.wrong ?? 0,
  };
}

export interface EventOutcome {
  status: string;
  /** `finished_at - received_at`; NaN while unfinished. */
  lagMs: number;
}

export async function eventOutcome(db: pg.Pool, id: string): Promise<EventOutcome> {
  const { rows } = await db.query<{ status: string; lag: number | null }>(
    `SELECT status, extract(epoch FROM finished_at - received_at) * 1000 AS lag
     FROM webhook_logs WHERE id = $1::uuid`,
    [id],
  );
  const row = rows[0];
  return {
    status: row?.status ?? 'missing',
    lagMs: row?.lag == null ? Number.NaN : Number(row.lag),
  };
}

export interface BurstOutcome {
  recorded: number;
  finished: number;
  /** Finished events that did not fail with ARTICLE_NOT_FOUND. */
  notRefused: number;
  /** From the first event received to the last finished; NaN unless all finished. */
  spanMs: number;
}

/** How a burst of events that must all fail with ARTICLE_NOT_FOUND went. */
export async function refusedBurst(db: pg.Pool, scope: EventScope): Promise<BurstOutcome> {
  const { rows } = await db.query<{
    recorded: number;
    finished: number;
    not_refused: number;
    span: number | null;
  }>(
    `SELECT count(*)::int AS recorded,
       count(finished_at)::int AS finished,
       count(*) FILTER (WHERE finished_at IS NOT NULL
         AND (status <> 'failed' OR error->>'code' IS DISTINCT FROM 'ARTICLE_NOT_FOUND'))::int
         AS not_refused,
       CASE WHEN count(finished_at) = count(*)
         THEN extract(epoch FROM max(finished_at) - min(received_at)) * 1000 END AS span
     FROM webhook_logs WHERE ${IN_SCOPE}`,
    scopeValues(scope),
  );
  const row = rows[0];
  return {
    recorded: row?.recorded ?? 0,
    finished: row?.finished ?? 0,
    notRefused: row?.not_refused ?? 0,
    spanMs: row?.span == null ? Number.NaN : Number(row.span),
  };
}
