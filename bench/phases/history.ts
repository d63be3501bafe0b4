// `pnpm bench --history=N`: does the event log hold up at volume? The same figures on an
// empty log and beside N events of history (40 days, daily partitions, generated in SQL),
// each as a ratio to the empty log's in the same run; then a retention run drops the
// oldest ten days while publishers publish. See bench/README.md, "History".
import { fetchClient, logIn, newAccountFields, registerAccount } from '@ingest/test-harness';
import type { BenchEnvironment } from '../bench-environment.js';
import { BENCH_DATABASE_URL } from '../support/bench-database.js';
import { mergeLoads, type Answer, type LoadResult } from '../support/fixed-rate-load.js';
import { ms } from '../support/format.js';
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
  contentQueue,
  EMPTY_LOG_DATABASE_URL,
  liveReset,
  startEmptyLog,
} from '../support/history-empty-log.js';
import {
  analyzeLive,
  DAY_MS,
  dropLegacyPartitions,
  premakeLive,
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
import {
  describeWaits,
  mergeWaits,
  startWaitSampler,
  type WaitReport,
} from '../support/wait-sampler.js';
import { storeArticles } from '../support/stored-articles.js';
import { searchCapacityInTurns, type CapacityResult, type CapacitySearch } from './capacity.js';
import { drainOnce, meanOf, serviceWorkers, type DrainResult } from './drain.js';
import { latencyAt } from './latency.js';

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
/** The latency run's parts a side, plan.latencySeconds in all, taken in turns. */
const LATENCY_PARTS = 2;
/** Drains a side, in turns (empty, history, history, empty). */
const DRAIN_TURNS = 2;
/**
 * The drains' workers keep every partition: with the default 30 days they would drop the
 * history's oldest ten during the drains. The retention run measures drops on its own.
 */
const KEEP_HISTORY = { EVENT_LOG_RETENTION_DAYS: '0' };

export interface LogFigures {
  /** The best of CAPACITY_SEARCHES searches. */
  capacity: CapacityResult;
  /** Each search's figure, in order. */
  capacitySearches: number[];
  latency: LoadResult;
  /** What the database waited on during the capacity searches and the latency run. */
  waits: { capacity: WaitReport; latency: WaitReport };
  receipts: { recent: ReadTiming; old?: ReadTiming };
  searches: Array<{
    filter: string;
    query: Record<string, string>;
    timing: ReadTiming;
    /** The empty log's filter it is set against, when not itself (SearchFilter.reference). */
    reference?: string;
  }>;
  /**
   * One worker's drain of the `titled` mix, DRAIN_TURNS runs and their mean; with the
   * history, `HistoryResult.articles` articles are stored when each starts.
   */
  drain?: { runs: DrainResult[]; mean: DrainResult };
}

/** Filled in as the mode goes: a run that fails part-way still reports what it measured. */
export interface HistoryResult {
  events: number;
  days: number;
  /** Articles stored beside the history when its drains start. */
  articles: number;
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

/** One of the two logs: its environment (live reset), whose events it holds, its operator. */
interface Side {
  label: 'empty' | 'history';
  env: BenchEnvironment;
  owners: HistoryOwners;
  operator: { email: string; password: string };
  databaseUrl: string;
}

type Reads = Pick<LogFigures, 'receipts' | 'searches'>;
type Accept = Omit<LogFigures, 'receipts' | 'searches' | 'drain'>;

const describeRead = (t: ReadTiming) =>
  `p50 ${ms(t.p50Ms)} p99 ${ms(t.p99Ms)} max ${ms(t.maxMs)} ms (${t.samples}` +
  `${t.failures > 0 ? `, ${t.failures} FAILED` : ''}${t.items === undefined ? '' : `, ${t.items} rows`})`;

/** Receipts and every search filter on one log, after seeding its recent events. */
async function measureReads(side: Side, ctx: Context): Promise<Reads> {
  const { env, label } = side;
  const { liveFromMs, events } = ctx;
  await env.reset();
  const now = Date.now();
  const seedFrom = Math.max(liveFromMs, now - SEED_WINDOW_MS);
  await seedRecent(
    env.db,
    { fromMs: seedFrom, toMs: now, count: SEED_EVENTS, firstOrdinal: SEED_ORDINAL },
    side.owners,
  );
  await analyzeLive(env.db, liveFromMs);

  const base = env.api.baseUrl;
  const recent = await timeReceipts(base, await eventsAround(env.db, seedFrom, now + 1), env.keys);
  const withHistory = label === 'history';
  const oldEvents = withHistory
    ? await eventsAround(env.db, liveFromMs - HISTORY_DAYS * DAY_MS, liveFromMs)
    : [];
  const old = withHistory ? await timeReceipts(base, oldEvents, env.keys) : undefined;
  env.log(`  ${label}: receipts, recent events: ${describeRead(recent)}`);
  if (old) {
    env.log(`  ${label}: receipts, events of the last ${HISTORY_DAYS} days: ${describeRead(old)}`);
  }

  const token = await logIn(fetchClient(base), side.operator);
  const searches: LogFigures['searches'] = [];
  for (const filter of searchFilters(side.owners, events, liveFromMs, Date.now())) {
    // The history's days exist only with the history: see SearchFilter.reference.
    if (!withHistory && filter.reference !== undefined) continue;
    const timing = await timeSearch(base, token, filter);
    searches.push({
      filter: filter.name,
      query: filter.query,
      timing,
      ...(filter.reference === undefined ? {} : { reference: filter.reference }),
    });
    env.log(`  ${label}: search ${filter.name}: ${describeRead(timing)}`);
  }
  return { receipts: { recent, ...(old ? { old } : {}) }, searches };
}

/** Runs `work` while sampling what the side's database waits on. */
async function sampled<T>(side: Side, work: () => Promise<T>): Promise<[T, WaitReport]> {
  const sampler = await startWaitSampler(side.databaseUrl);
  try {
    return [await work(), await sampler.stop()];
  } catch (error) {
    await sampler.stop().catch(() => undefined);
    throw error;
  }
}

/**
 * Accept capacity and latency of both logs, their steps in turns (searchCapacityInTurns):
 * CAPACITY_SEARCHES searches each, the later ones starting below the first's figure, then
 * the latency at half the empty log's capacity, in LATENCY_PARTS runs a side, also in
 * turns (empty, history, history, empty, ...: neither always goes first).
 */
async function measureAccept(sides: [Side, Side]): Promise<[Accept, Accept]> {
  const [empty] = sides;
  const { plan } = empty.env.options;
  // What each side gathers as the turns go.
  const gathered = sides.map((side) => ({
    side,
    searches: [] as CapacityResult[],
    capacityWaits: [] as WaitReport[],
    latencyRuns: [] as LoadResult[],
    latencyAnswers: [] as Answer[],
    latencyWaits: [] as WaitReport[],
  }));
  const best = (searches: CapacityResult[]) => searches.reduce((a, b) => (b.rate > a.rate ? b : a));

  for (let i = 0; i < CAPACITY_SEARCHES; i += 1) {
    empty.env.log(`  capacity, search ${i + 1} of ${CAPACITY_SEARCHES}, both logs in turns`);
    const targets = gathered.map(({ side, searches, capacityWaits }): CapacitySearch => {
      const first = searches[0]?.rate;
      return {
        env: side.env,
        label: side.label,
        target: side.env.api,
        startRate: first ? Math.round(first * 0.6) : plan.searchStartRate,
        // Each step of this side's search, with what its database waited on meanwhile.
        observe: async (step) => {
          const [result, report] = await sampled(side, step);
          capacityWaits.push(report);
          return result;
        },
      };
    });
    const results = await searchCapacityInTurns(targets);
    for (const [j, { searches }] of gathered.entries()) searches.push(results[j]!);
  }
  const rate = Math.max(50, Math.round(best(gathered[0]!.searches).rate / 2));

  for (let part = 0; part < LATENCY_PARTS; part += 1) {
    for (const into of part % 2 === 0 ? gathered : [...gathered].reverse()) {
      const { env, label } = into.side;
      const [run, report] = await sampled(into.side, () =>
        latencyAt(env, label, env.api, rate, {
          seconds: plan.latencySeconds / LATENCY_PARTS,
          answers: into.latencyAnswers,
        }),
      );
      into.latencyRuns.push(run);
      into.latencyWaits.push(report);
    }
  }
  const [emptyFigures, historyFigures] = gathered.map((into): Accept => {
    const waits = {
      capacity: mergeWaits(into.capacityWaits),
      latency: mergeWaits(into.latencyWaits),
    };
    into.side.env.log(`  ${into.side.label}: capacity ${describeWaits(waits.capacity)}`);
    into.side.env.log(`  ${into.side.label}: latency ${describeWaits(waits.latency)}`);
    return {
      capacity: best(into.searches),
      capacitySearches: into.searches.map((search) => search.rate),
      latency: mergeLoads(into.latencyRuns, into.latencyAnswers),
      waits,
    };
  });
  return [emptyFigures!, historyFigures!];
}

/**
 * One worker's drain on each log, in turns (empty, history, history, empty), of the drain
 * phase's size and the `titled` mix (one create in four derives its slug from a title
 * stored articles share). Each starts from emptied live partitions and an empty articles
 * table; the history's then gets `articles` articles, as the stored-articles phase makes
 * them, so that it drains beside both the events and the content of months.
 */
async function measureDrains(
  sides: [Side, Side],
  ctx: Context,
  articles: number,
): Promise<Array<NonNullable<LogFigures['drain']>>> {
  const runs: DrainResult[][] = sides.map(() => []);
  for (let turn = 0; turn < DRAIN_TURNS; turn += 1) {
    for (const i of turn % 2 === 0 ? [0, 1] : [1, 0]) {
      const side = sides[i]!;
      const { env, label } = side;
      const prepare = async () => {
        if (label !== 'history') return;
        const accountIds = [...new Set(env.keys.map((key) => key.accountId))];
        const { seconds } = await storeArticles(env.db, accountIds, articles);
        env.log(`  history: ${articles} articles stored in ${seconds.toFixed(1)} s`);
      };
      runs[i]!.push(
        await drainOnce(
          env,
          'service',
          `${label} drain (${turn + 1})`,
          serviceWorkers(env, 1, KEEP_HISTORY),
          {
            mix: 'titled',
            prepare,
            countFrom: new Date(ctx.liveFromMs),
          },
        ),
      );
    }
  }
  return runs.map((sideRuns) => ({ runs: sideRuns, mean: meanOf(sideRuns) }));
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

export const newHistoryResult = (events: number, articles: number): HistoryResult => ({
  events,
  days: HISTORY_DAYS,
  articles,
});

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
  const queue = contentQueue(env);
  const emptyLog = await startEmptyLog(env, liveFromMs);
  env.log(`history: the empty log's database, API and ${emptyLog.env.keys.length} keys ready`);
  try {
    const live: BenchEnvironment = { ...env, reset: liveReset(queue, env.db, liveFromMs) };
    const sideOf = async (
      label: Side['label'],
      on: BenchEnvironment,
      databaseUrl: string,
    ): Promise<Side> => ({
      label,
      env: on,
      owners: await ownersOf(on),
      operator: await makeOperator(on),
      databaseUrl,
    });
    const empty = await sideOf('empty', emptyLog.env, EMPTY_LOG_DATABASE_URL);
    const history = await sideOf('history', live, BENCH_DATABASE_URL);
    const ctx: Context = { events, liveFromMs };

    await live.reset();
    env.log(`history: ${events.toLocaleString('en-US')} events over ${HISTORY_DAYS} days`);
    result.fill = await fillHistory(env.db, events, liveFromMs, history.owners, (line) =>
      env.log(line),
    );
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

    env.log('history: reads of the empty log, then of the log with the history');
    const reads = [await measureReads(empty, ctx), await measureReads(history, ctx)];
    env.log('history: accept capacity and latency of both logs, in turns');
    const accept = await measureAccept([empty, history]);
    result.empty = { ...reads[0]!, ...accept[0] };
    result.history = { ...reads[1]!, ...accept[1] };
    const latencyRate = result.empty.latency.targetRate;
    result.latencyRate = latencyRate;
    env.log(
      `history: one worker's drain of both logs, in turns, ${result.articles} articles ` +
        'stored beside the history',
    );
    const [emptyDrain, historyDrain] = await measureDrains([empty, history], ctx, result.articles);
    result.empty.drain = emptyDrain;
    result.history.drain = historyDrain;
    await live.reset();
    result.retention = await runRetentionUnderLoad(env, latencyRate, liveFromMs);
  } finally {
    await emptyLog.stop();
    await queue.close();
  }
}
