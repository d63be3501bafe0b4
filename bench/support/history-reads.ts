// The reads the history mode times over HTTP, one request at a time per client: receipt
// lookups by a publisher's key, and the operator event search with each of its filters.
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { BenchKey } from './event-mix.js';
import { sortedSamples, spreadMs } from './percentiles.js';

export interface ReadTiming {
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Answers other than 200, and requests that got no answer. */
  failures: number;
  /** Rows the first answer held (searches): a filter that matched nothing says so. */
  items?: number;
}

interface TimedRequest {
  path: string;
  headers: Record<string, string>;
}

async function timeOne(baseUrl: string, request: TimedRequest) {
  const started = performance.now();
  try {
    const response = await fetch(`${baseUrl}${request.path}`, {
      headers: request.headers,
      signal: AbortSignal.timeout(30_000),
    });
    const body = await response.text();
    return { ms: performance.now() - started, ok: response.status === 200, body };
  } catch {
    return { ms: performance.now() - started, ok: false, body: '' };
  }
}

/**
 * Sends `requests` (cycling), `clients` at a time, after `warmup` untimed ones, until
 * `count` are timed or `budgetMs` has passed: a search that takes seconds still ends.
 */
async function timeRequests(
  baseUrl: string,
  requests: TimedRequest[],
  options: { count: number; clients: number; warmup: number; budgetMs: number },
): Promise<ReadTiming & { firstBody: string }> {
  if (requests.length === 0) throw new Error('nothing to time');
  let firstBody = '';
  for (let i = 0; i < options.warmup; i += 1) {
    firstBody = (await timeOne(baseUrl, requests[i % requests.length]!)).body;
  }
  const latencies: number[] = [];
  let failures = 0;
  let sent = 0;
  const deadline = performance.now() + options.budgetMs;
  const client = async () => {
    while (sent < options.count && performance.now() < deadline) {
      const request = requests[sent % requests.length]!;
      sent += 1;
      const { ms, ok } = await timeOne(baseUrl, request);
      latencies.push(ms);
      if (!ok) failures += 1;
    }
  };
  await Promise.all(Array.from({ length: options.clients }, client));
  const sorted = sortedSamples(latencies);
  return {
    samples: sorted.length,
    ...spreadMs(sorted),
    failures,
    firstBody,
  };
}

/** Samples of each read: p99s of fewer swing by more than the 1.5x they are held to. */
const LOOKUPS = 2_000;
const SEARCHES = 2_000;

/** Ids of events received in [fromMs, toMs), at random instants, with their accounts. */
export async function eventsAround(
  db: pg.Pool,
  fromMs: number,
  toMs: number,
  count = LOOKUPS,
): Promise<Array<{ id: string; accountId: string }>> {
  // The first id at or after each random instant: one index probe in one partition each.
  const { rows } = await db.query<{ id: string; account_id: string }>(
    `SELECT w.id, w.account_id
     FROM (SELECT $1::bigint + floor(random() * ($2::bigint - $1::bigint))::bigint AS ms
           FROM generate_series(1, $3::int)) AS g
     CROSS JOIN LATERAL (
       SELECT id, account_id FROM webhook_logs
       WHERE id >= (lpad(to_hex(g.ms), 12, '0') || '00000000000000000000')::uuid
         AND id < (lpad(to_hex($2::bigint), 12, '0') || '00000000000000000000')::uuid
       ORDER BY id LIMIT 1) AS w`,
    [fromMs, toMs, count],
  );
  return rows.map((row) => ({ id: row.id, accountId: row.account_id }));
}

/** GET /api/webhooks/content/:id, each with a key of the event's account. */
export async function timeReceipts(
  baseUrl: string,
  events: Array<{ id: string; accountId: string }>,
  keys: BenchKey[],
): Promise<ReadTiming> {
  const keyOf = new Map(keys.map((k) => [k.accountId, k.key]));
  const requests = events.map((event) => ({
    path: `/api/webhooks/content/${event.id}`,
    headers: { 'x-api-key': keyOf.get(event.accountId) ?? '' },
  }));
  const { firstBody: _, ...timing } = await timeRequests(baseUrl, requests, {
    count: LOOKUPS,
    clients: 2,
    warmup: 50,
    budgetMs: 60_000,
  });
  return timing;
}

/** One filter of the operator search, as its query string. */
export interface SearchFilter {
  name: string;
  query: Record<string, string>;
  /**
   * For a filter that reads the history's days: the filter of the empty log it is set
   * against. The empty log has no such days, so the same filter there finds nothing and
   * reads no row; its recent counterpart finds as many rows in one window.
   */
  reference?: string;
}

/** The first page (20 rows, newest first) for `filter`, as an operator's dashboard asks. */
export async function timeSearch(
  baseUrl: string,
  token: string,
  filter: SearchFilter,
): Promise<ReadTiming> {
  const query = new URLSearchParams(filter.query).toString();
  const request = {
    path: `/api/admin/events${query === '' ? '' : `?${query}`}`,
    headers: { authorization: `Bearer ${token}` },
  };
  // 2,000 samples: the p99 of 400 is its fifth-largest, which a few scheduling hiccups on
  // these two shared cores decide (two runs of the same code put status=failed at 1.19
  // and 1.67x); of 2,000 it is the 21st. Warm-up enough to have every partition's plan
  // inputs (relcache, index metapages) loaded in the API's connections, as a dashboard
  // finds them.
  const { firstBody, ...timing } = await timeRequests(baseUrl, [request], {
    count: SEARCHES,
    clients: 1,
    warmup: 20,
    budgetMs: 60_000,
  });
  let items: number | undefined;
  try {
    items = (JSON.parse(firstBody) as { items: unknown[] }).items.length;
  } catch {
    items = undefined;
  }
  // A pause between filters, so one filter's tail does not fall into the next one's.
  await sleep(200);
  return { ...timing, ...(items === undefined ? {} : { items }) };
}
