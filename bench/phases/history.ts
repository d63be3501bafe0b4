// `pnpm bench --history=N`: does the event log hold up at volume? The same figures on an
// empty log and beside N events of history (40 days, daily partitions, generated in SQL),
// each as a ratio to the empty log's in the same run; then a retention run drops the
// oldest ten days while publishers publish. See bench/README.md, "History".
import { fetchClient, logIn, newAccountFields, registerAccount } from '@ingest/test-harness';
import { Queue } from 'bullmq';
import type { BenchEnvironment } from '../bench-environment.js';
import { describeCpu } from '../support/cpu-meter.js';
import { createEventStream } from '../support/event-mix.js';
import { runFixedRate, type LoadResult } from '../support/fixed-rate-load.js';
import { describeLoad, ms } from '../support/format.js';
import {
  fillHistory,
  listHistorySlugs,
  settleAfterFill,
  HISTORY_DAYS,
  seedRecent,
  type FillReport,
  type HistoryOwners,
} from '../support/history-fill.js';
import {
  analyzeLive,
  DAY_MS,
  dropLegacyPartitions,
  premakeLive,
  resetLive,
  startOfDay,
} from '../support/history-partitions.js';
import {
  eventsAround,
  timeReceipts,
  timeSearch,
  type ReadTiming,
  type SearchFilter,
} from '../support/history-reads.js';
import { runRetentionUnderLoad, type RetentionResult } from '../support/history-retention.js';
import { SERVICE_REDIS_PREFIX } from '../support/launchers.js';
import { searchCapacity, type CapacityResult } from './capacity.js';

/** Recent events made before each round of reads, the same in both rounds. */
export const SEED_EVENTS = 2_000;
/** Their ordinals (and slugs, `h-<ordinal>`) start here, past any history's. */
const SEED_ORDINAL = 1_000_000_000;
const SEED_WINDOW_MS = 3_600_000;

/**
 * Capacity searches per log, the best counting. A step near the knee passes or fails by
 * chance: single searches of the same empty log found 3432, 3798 and 4652/s in three runs,
 * so one search per side made the ratio a coin toss around 0.9.
 */
const CAPACITY_SEARCHES = 2;

export interface LogFigures {
  /** The best of CAPACITY_SEARCHES searches. */
  capacity: CapacityResult;
  /** Each search's figure, in order. */
  capacitySearches: number[];
  latency: LoadResult;
  receipts: { recent: ReadTiming; old?: ReadTiming };
  searches: Array<{
    filter: string;
    query: Record<string, string>;
    timing: ReadTiming;
    /** The empty log's filter it is set against, when not itself (SearchFilter.reference). */
    reference?: string;
  }>;
}

/** Filled in as the mode goes: a run that fails part-way still reports what it measured. */
export interface HistoryResult {
  events: number;
  days: number;
  /** Start of the live day: the history is the HISTORY_DAYS days before it. */
  liveFrom?: string;
  legacyDropped?: string[];
  latencyRate?: number;
  empty?: LogFigures;
  fill?: FillReport;
  history?: LogFigures;
  retention?: RetentionResult;
}

interface Context {
  env: BenchEnvironment;
  /** The environment with a reset that keeps the history: what capacity steps call. */
  live: BenchEnvironment;
  owners: HistoryOwners;
  operator: { email: string; password: string };
  events: number;
  liveFromMs: number;
}

/** Every filter of the operator search (services/admin/event-search.ts), with values that exist. */
function searchFilters(
  owners: HistoryOwners,
  events: number,
  liveFromMs: number,
  now: number,
): SearchFilter[] {
  const hour = (fromMs: number) => ({
    from: new Date(fromMs).toISOString(),
    to: new Date(fromMs + 3_600_000).toISOString(),
  });
  // An article.create (ordinal divisible by 20) of the history's middle day.
  const oldOrdinal = Math.floor((events * 0.51) / 20) * 20 + 20;
  const oldNoon = liveFromMs - (HISTORY_DAYS / 2) * DAY_MS + DAY_MS / 2;
  const recentSlug = `h-${SEED_ORDINAL + 500}`;
  return [
    { name: 'newest first, no filter', query: {} },
    { name: 'status=failed', query: { status: 'failed' } },
    { name: 'event=article.delete', query: { event: 'article.delete' } },
    { name: 'accountId', query: { accountId: owners.keyAccounts[0] ?? '' } },
    { name: 'apiKeyId', query: { apiKeyId: owners.keyIds[0] ?? '' } },
    { name: 'slug, recent event', query: { slug: recentSlug } },
    {
      name: `slug, event of ${HISTORY_DAYS / 2} days ago`,
      query: { slug: `h-${oldOrdinal}` },
      reference: 'slug, recent event',
    },
    { name: 'from/to, the last hour', query: hour(now - 3_600_000) },
    {
      name: `from/to, an hour ${HISTORY_DAYS / 2} days ago`,
      query: hour(oldNoon),
      reference: 'from/to, the last hour',
    },
    { name: 'payload {"category":"Sport"}', query: { payload: '{"category":"Sport"}' } },
    { name: 'payload {"slug": recent}', query: { payload: JSON.stringify({ slug: recentSlug }) } },
  ];
}

async function measureLog(ctx: Context, label: string, latencyRate?: number): Promise<LogFigures> {
  const { env, live, liveFromMs } = ctx;
  await live.reset();
  const now = Date.now();
  const seedFrom = Math.max(liveFromMs, now - SEED_WINDOW_MS);
  await seedRecent(
    env.db,
    { fromMs: seedFrom, toMs: now, count: SEED_EVENTS, firstOrdinal: SEED_ORDINAL },
    ctx.owners,
  );
  await analyzeLive(env.db, liveFromMs);

  const base = env.api.baseUrl;
  const recent = await timeReceipts(base, await eventsAround(env.db, seedFrom, now + 1), env.keys);
  const withHistory = latencyRate !== undefined;
  const oldEvents = withHistory
    ? await eventsAround(env.db, liveFromMs - HISTORY_DAYS * DAY_MS, liveFromMs)
    : [];
  const old = withHistory ? await timeReceipts(base, oldEvents, env.keys) : undefined;
  const describe = (t: ReadTiming) =>
    `p50 ${ms(t.p50Ms)} p99 ${ms(t.p99Ms)} max ${ms(t.maxMs)} ms (${t.samples}` +
    `${t.failures > 0 ? `, ${t.failures} FAILED` : ''}${t.items === undefined ? '' : `, ${t.items} rows`})`;
  env.log(`  ${label}: receipts, recent events: ${describe(recent)}`);
  if (old)
    env.log(`  ${label}: receipts, events of the last ${HISTORY_DAYS} days: ${describe(old)}`);

  const token = await logIn(fetchClient(base), ctx.operator);
  const searches: LogFigures['searches'] = [];
  for (const filter of searchFilters(ctx.owners, ctx.events, liveFromMs, Date.now())) {
    // The history's days exist only with the history: see SearchFilter.reference.
    if (!withHistory && filter.reference !== undefined) continue;
    const timing = await timeSearch(base, token, filter);
    searches.push({
      filter: filter.name,
      query: filter.query,
      timing,
      ...(filter.reference === undefined ? {} : { reference: filter.reference }),
    });
    env.log(`  ${label}: search ${filter.name}: ${describe(timing)}`);
  }

  env.log(`  ${label}: capacity, best of ${CAPACITY_SEARCHES} searches`);
  const searched: CapacityResult[] = [];
  for (let i = 0; i < CAPACITY_SEARCHES; i += 1) {
    // The later searches start below the first's figure rather than climb from the bottom.
    const first = searched[0]?.rate;
    const start = first ? Math.round(first * 0.6) : env.options.plan.searchStartRate;
    searched.push(await searchCapacity(live, 'service', env.api, start));
  }
  const capacity = searched.reduce((best, next) => (next.rate > best.rate ? next : best));
  const rate = latencyRate ?? Math.max(50, Math.round(capacity.rate / 2));
  await live.reset();
  const meter = await env.cpuMeter([{ name: 'service', pid: env.api.proc.pid }]);
  const { plan } = env.options;
  const stream = createEventStream(env.keys, env.tag('lat'), 'creates');
  const latency = await runFixedRate(
    `${base}/api/webhooks/content`,
    stream,
    rate,
    plan.latencySeconds,
    plan.connections,
  );
  env.log(`  ${label}: latency ${describeLoad(latency)}\n      ${describeCpu(await meter.stop())}`);
  return {
    capacity,
    capacitySearches: searched.map((search) => search.rate),
    latency,
    receipts: { recent, ...(old ? { old } : {}) },
    searches,
  };
}

/** The publishers' API keys (ids), with their accounts: whose the history's events are. */
async function ownersOf(env: BenchEnvironment): Promise<HistoryOwners> {
  const { rows } = await env.db.query<{ id: string; account_id: string }>(
    `SELECT id, account_id FROM api_keys WHERE account_id = ANY($1::uuid[])
     ORDER BY account_id, created_at, id`,
    [[...new Set(env.keys.map((k) => k.accountId))]],
  );
  return { keyIds: rows.map((r) => r.id), keyAccounts: rows.map((r) => r.account_id) };
}

/** An operator (admin) account, made as `pnpm admin:grant` makes one: in the database. */
async function makeOperator(env: BenchEnvironment) {
  const fields = newAccountFields('bench.example', 'operator');
  const account = await registerAccount(fetchClient(env.api.baseUrl), fields);
  await env.db.query(`UPDATE accounts SET role = 'admin' WHERE id = $1::uuid`, [account.id]);
  return { email: fields.email, password: fields.password };
}

export const newHistoryResult = (events: number): HistoryResult => ({ events, days: HISTORY_DAYS });

/** Runs the mode, recording each part into `result` as soon as it is measured. */
export async function measureHistory(env: BenchEnvironment, result: HistoryResult): Promise<void> {
  const { events } = result;
  result.legacyDropped = await dropLegacyPartitions(env.db);
  const premade = await premakeLive(env.db);
  const liveFromMs = startOfDay(Date.now());
  result.liveFrom = new Date(liveFromMs).toISOString();
  env.log(
    `history: legacy partitions dropped (${result.legacyDropped.join(', ') || 'none'}); ` +
      `${premade.length} live partitions made`,
  );
  // The service's queue (packages/queue), as bench-environment.ts names it.
  const queue = new Queue('content-events', {
    connection: { host: '127.0.0.1', port: env.redis.port },
    prefix: `${SERVICE_REDIS_PREFIX}:bull`,
  });
  try {
    const owners = await ownersOf(env);
    const live: BenchEnvironment = {
      ...env,
      async reset() {
        await queue.obliterate({ force: true });
        await resetLive(env.db, liveFromMs);
      },
    };
    const ctx: Context = {
      env,
      live,
      owners,
      operator: await makeOperator(env),
      events,
      liveFromMs,
    };
    env.log('history: the empty log');
    result.empty = await measureLog(ctx, 'empty');
    const latencyRate = result.empty.latency.targetRate;
    result.latencyRate = latencyRate;

    await live.reset();
    env.log(`history: ${events.toLocaleString('en-US')} events over ${HISTORY_DAYS} days`);
    result.fill = await fillHistory(env.db, events, liveFromMs, owners, (line) => env.log(line));
    env.log(`history: filled in ${result.fill.seconds.toFixed(0)} s`);
    const lists = await listHistorySlugs(env.db);
    result.fill.slugLists = lists;
    env.log(
      `history: slugs of ${lists.partitions} closed partitions listed in ${lists.seconds.toFixed(0)} s`,
    );
    result.fill.settleSeconds = await settleAfterFill(env.db);
    env.log(
      `history: settled (checkpoint, autovacuum) in ${result.fill.settleSeconds.toFixed(0)} s`,
    );

    env.log(`history: the log with ${events.toLocaleString('en-US')} events`);
    result.history = await measureLog(ctx, 'history', latencyRate);
    await live.reset();
    result.retention = await runRetentionUnderLoad(env, latencyRate, liveFromMs);
  } finally {
    await queue.close();
  }
}
