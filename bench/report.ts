// The run's figures as one table (figure, service, reference, ratio, target), printed
// and written to results/latest.md and results/latest.json.
import type { CapacityResult } from './phases/capacity.js';
import { batchRows } from './support/batch-report.js';
import type { BatchesResult } from './support/batch-result.js';
import type { DeliveriesResult } from './phases/deliveries.js';
import type { DrainFigures } from './phases/drain.js';
import type { FairnessResult } from './phases/fairness.js';
import type { FootprintResult } from './phases/footprint.js';
import type { HotSlugResult, HotSlugsResult } from './phases/hot-slugs.js';
import type { IsolationResult, OwnerLatency } from './phases/isolation.js';
import type { LatencyResult } from './phases/latency.js';
import type { TopologyResult } from './phases/topology.js';
import type { TracingResult } from './phases/tracing.js';
import type { SlugsFigures } from './phases/slugs.js';
import type { StoredArticlesResult } from './phases/stored-articles.js';
import { burstName, fineRate, perSecond, ratio } from './support/format.js';
import { percentile } from './support/percentiles.js';
import type { LagPercentiles } from './support/progress-queries.js';
import { deliveryFilterRows } from './support/delivery-filter-report.js';
import { cliRows } from './support/cli-report.js';
import type { CliResult } from './support/cli-result.js';
import { fairnessRows } from './support/fairness-report.js';
import {
  noteLines,
  markdownTable,
  writeResultsFile,
  type Row,
  type RunFacts,
} from './support/results-file.js';

export interface Figures {
  capacity?: { service: CapacityResult; floor: CapacityResult };
  latency?: LatencyResult;
  batches?: BatchesResult;
  drain?: DrainFigures;
  storedArticles?: StoredArticlesResult;
  topology?: TopologyResult;
  tracing?: TracingResult;
  lag?: { rate: number; service: LagPercentiles; floor: LagPercentiles };
  hotSlugs?: HotSlugsResult;
  slugs?: SlugsFigures;
  footprint?: FootprintResult;
  deliveries?: DeliveriesResult;
  cli?: CliResult;
  fairness?: FairnessResult;
}

/** Targets the issues set; the other figures are compared, not judged, for now. */
export const FOOTPRINT_GROWTH_TARGET = 1.15;
/** One hot slug's 1,000 updates applied within this long of the last 202. */
export const HOT_SLUG_CATCH_UP_TARGET_MS = 5_000;
/** An owner's update behind another account's burst about its slug, p99. */
export const ISOLATION_P99_TARGET_MS = 1_000;

const millis = (n: number) => (Number.isFinite(n) ? `${n.toFixed(1)} ms` : 'n/a');
const mebibytes = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
const within = (start: number, end: number) =>
  end / start <= FOOTPRINT_GROWTH_TARGET ? 'ok' : 'OVER';
/** As `ratio`, with two significant digits below 0.1: a hot slug may run at 0.001x. */
const fineRatio = (a: number, b: number) =>
  b > 0 && Number.isFinite(a / b) && a / b < 0.1 ? (a / b).toPrecision(2) : ratio(a, b);
/** Milliseconds, as seconds from 1 s (lags behind a hot slug run to seconds); Infinity is a missed deadline. */
const duration = (n: number, missed = '') => {
  if (n === Infinity) return `> ${missed}`;
  if (!Number.isFinite(n)) return 'n/a';
  return n < 1_000 ? `${n.toFixed(1)} ms` : `${(n / 1000).toFixed(1)} s`;
};
const thousands = (n: number) => n.toLocaleString('en-US');

function hotSlugRows(
  add: AddRow,
  { slugs, updatesPerSlug, hot, reference, deadlineSeconds }: HotSlugResult,
) {
  const name = burstName(slugs);
  const distinct = (text: string) => `${text} distinct`;
  add(
    `${name} (${thousands(updatesPerSlug)} updates each): per-slug updates/s (median)`,
    fineRate(hot.perSlugRate.median),
    distinct(fineRate(reference.rate)),
    fineRatio(hot.perSlugRate.median, reference.rate),
  );
  if (slugs > 1) {
    add(
      `${name}: per-slug updates/s (slowest slug)`,
      fineRate(hot.perSlugRate.min),
      distinct(fineRate(reference.rate)),
      fineRatio(hot.perSlugRate.min, reference.rate),
    );
  }
  const catchUp = hot.complete
    ? duration(hot.catchUpMs)
    : `missed: ${hot.applied}/${hot.accepted} applied in ${deadlineSeconds} s`;
  const met = hot.complete && hot.catchUpMs <= HOT_SLUG_CATCH_UP_TARGET_MS;
  add(
    `${name}: catch-up after the last 202`,
    catchUp,
    '—',
    '—',
    slugs === 1 ? `≤ ${HOT_SLUG_CATCH_UP_TARGET_MS / 1000} s ${met ? 'ok' : 'OVER'}` : '—',
  );
  add(
    `${name}: lag p50 / p99`,
    `${duration(hot.lag.p50Ms)} / ${duration(hot.lag.p99Ms)}`,
    distinct(`${duration(reference.lag.p50Ms)} / ${duration(reference.lag.p99Ms)}`),
    ratio(hot.lag.p99Ms, reference.lag.p99Ms),
  );
  const { outOfOrder, failed, wrongTitle } = hot.violations;
  const broken = outOfOrder + failed + wrongTitle;
  add(
    `${name}: updates out of order or failed`,
    String(broken),
    '—',
    '—',
    `0 ${broken === 0 ? 'ok' : 'BROKEN'}`,
  );
}

function isolationRows(add: AddRow, isolation: IsolationResult) {
  const { behindForeign: behind, alone, foreignEvents, ownerDeadlineSeconds } = isolation;
  const after = `after ${thousands(foreignEvents)} foreign events`;
  const shown = (l: OwnerLatency, n: number) =>
    duration(n, `${ownerDeadlineSeconds} s (${l.missed} of ${l.tries} missed)`);
  for (const [name, key] of [
    ['p50', 'p50Ms'],
    ['p99', 'p99Ms'],
    ['max', 'maxMs'],
  ] as const) {
    const met = behind[key] < ISOLATION_P99_TARGET_MS ? 'ok' : 'OVER';
    add(
      `Isolation: owner's update ${name} ${after}`,
      shown(behind, behind[key]),
      `${shown(alone, alone[key])} alone`,
      ratio(behind[key], alone[key]),
      name === 'p99' ? `< ${ISOLATION_P99_TARGET_MS / 1000} s ${met}` : '—',
    );
  }
  // A burst not finished within the settle bound counts as slower than any that was.
  const spans = isolation.tries
    .map((t) => (Number.isFinite(t.foreign.spanMs) ? t.foreign.spanMs : Infinity))
    .sort((a, b) => a - b);
  const unsettled = spans.filter((n) => n === Infinity).length;
  add(
    `Isolation: ${thousands(foreignEvents)} foreign events all finished (median of tries)`,
    duration(
      percentile(spans, 0.5),
      `${isolation.settleSeconds} s (${unsettled} of ${spans.length} tries)`,
    ),
    '—',
    '—',
  );
}

function deliveryRows(add: AddRow, deliveries: DeliveriesResult) {
  const { endpointsPerAccount: n, throughput, lag, referenceRate: reference } = deliveries;
  const without = `${perSecond(reference)} no endpoints`;
  for (const [how, drain] of [
    ['outbox only, deliveries not consumed', deliveries.outboxOnly],
    ['deliveries in a 2nd worker process', deliveries.separate],
    ['deliveries in the same worker', deliveries.together],
  ] as const) {
    add(
      `Content drain, ${n} endpoints/account: ${how}`,
      perSecond(drain.rate),
      without,
      ratio(drain.rate, reference),
    );
  }
  deliveryFilterRows(add, deliveries.filter, reference);
  add(
    'Webhook deliveries, 1 worker (WORKER_QUEUES=deliveries), local receiver',
    perSecond(throughput.rate),
    `${perSecond(reference)} events, 1 worker`,
    ratio(throughput.rate, reference),
  );
  for (const [name, key] of [
    ['p50', 'p50Ms'],
    ['p99', 'p99Ms'],
  ] as const) {
    add(
      `Delivery lag ${name} at ${lag.rate} creates/s, ${n} endpoints (applied → delivered)`,
      duration(lag.delivery[key]),
      `${duration(lag.content[key])} accepted → applied`,
      ratio(lag.delivery[key], lag.content[key]),
    );
  }
}

type AddRow = (
  figure: string,
  service: string,
  reference: string,
  r: string,
  target?: string,
) => void;

/** One service worker's drain against the floor worker's: at least this much. */
export const DRAIN_TARGET = 1.0;

const CPU_PARTS = [
  ['worker', 'worker 1'],
  ['PostgreSQL', 'postgres'],
  ['Redis', 'redis'],
] as const;

function drainRows(add: AddRow, drain: DrainFigures): void {
  const { service1, service2, floor, service1Runs, floorRuns } = drain;
  const runs = (list: typeof service1Runs) => list.map((run) => Math.round(run.rate)).join(', ');
  const r = service1.rate / floor.rate;
  add(
    `Drain, 1 worker (${service1.events} events), mean of runs ${runs(service1Runs)}`,
    perSecond(service1.rate),
    `${perSecond(floor.rate)} floor worker (${runs(floorRuns)})`,
    ratio(service1.rate, floor.rate),
    `≥ ${DRAIN_TARGET} ${r >= DRAIN_TARGET ? 'ok' : 'MISSED'}`,
  );
  const ms = (n: number | undefined) => (n === undefined ? 'n/a' : `${n.toFixed(3)} ms`);
  let serviceTotal = 0;
  let floorTotal = 0;
  for (const [label, name] of CPU_PARTS) {
    const s = service1.cpuMsPerEvent[name];
    const f = floor.cpuMsPerEvent[name];
    serviceTotal += s ?? 0;
    floorTotal += f ?? 0;
    add(
      `Drain, 1 worker: CPU per event, ${label}`,
      ms(s),
      `${ms(f)} floor`,
      ratio(s ?? NaN, f ?? NaN),
    );
  }
  add(
    'Drain, 1 worker: CPU per event, worker + PostgreSQL + Redis',
    ms(serviceTotal),
    `${ms(floorTotal)} floor`,
    ratio(serviceTotal, floorTotal),
  );
  add(
    'Drain, 2 workers',
    perSecond(service2.rate),
    `${perSecond(service1.rate)} 1 worker`,
    ratio(service2.rate, service1.rate),
  );
}

/** Drain with the content stored against the empty table: at least this much. */
/** Creates without a slug against creates with one, and of one title against distinct ones. */
export const SLUG_TARGET = 0.9;

function slugRows(add: AddRow, slugs: SlugsFigures): void {
  const rates = (mix: keyof SlugsFigures) =>
    slugs[mix].runs.map((run) => Math.round(run.rate)).join(', ');
  const line = (
    figure: string,
    mix: keyof SlugsFigures,
    against: keyof SlugsFigures,
    what: string,
  ) => {
    const r = slugs[mix].mean.rate / slugs[against].mean.rate;
    add(
      `${figure} (${slugs[mix].mean.events} creates, 1 worker), runs ${rates(mix)}`,
      perSecond(slugs[mix].mean.rate),
      `${perSecond(slugs[against].mean.rate)} ${what} (${rates(against)})`,
      ratio(slugs[mix].mean.rate, slugs[against].mean.rate),
      `≥ ${SLUG_TARGET} ${r >= SLUG_TARGET ? 'ok' : 'MISSED'}`,
    );
  };
  line('Slugs: creates without a slug', 'published', 'creates', 'with a unique slug');
  line('Slugs: creates all of one title', 'one-title', 'published', 'distinct titles');
  const ms = (n: number | undefined) => (n === undefined ? 'n/a' : `${n.toFixed(3)} ms`);
  for (const [mix, against, what] of [
    ['published', 'creates', 'with a slug'],
    ['one-title', 'published', 'distinct titles'],
  ] as const) {
    for (const [label, name] of CPU_PARTS) {
      const s = slugs[mix].mean.cpuMsPerEvent[name];
      const f = slugs[against].mean.cpuMsPerEvent[name];
      add(
        `Slugs: CPU per create, ${label}, ${mix}`,
        ms(s),
        `${ms(f)} ${what}`,
        ratio(s ?? NaN, f ?? NaN),
      );
    }
  }
}

export const STORED_DRAIN_TARGET = 0.9;

/** On the topology, accept capacity and drain keep at least this much of the single node's. */
export const TOPOLOGY_TARGET = 0.7;
/** Under load, the busiest master of the cluster runs at most this many times the idlest's commands. */
export const MASTER_SPREAD_TARGET = 3;

function topologyRows(add: AddRow, { capacity, drains, commandsPerMaster }: TopologyResult): void {
  const judge = (r: number) => `≥ ${TOPOLOGY_TARGET} ${r >= TOPOLOGY_TARGET ? 'ok' : 'MISSED'}`;
  add(
    'Ingest capacity on the topology (PgBouncer 1.18, 3-master Redis Cluster)',
    perSecond(capacity.topology.rate),
    `${perSecond(capacity.single.rate)} single node`,
    ratio(capacity.topology.rate, capacity.single.rate),
    judge(capacity.topology.rate / capacity.single.rate),
  );
  const runs = (results: Array<{ rate: number }>) =>
    results.map((run) => perSecond(run.rate)).join(', ');
  add(
    `Drain, 1 worker, on the topology, mean of ${runs(drains.topologyRuns)}`,
    perSecond(drains.topology.rate),
    `${perSecond(drains.single.rate)} single node (${runs(drains.singleRuns)})`,
    ratio(drains.topology.rate, drains.single.rate),
    judge(drains.topology.rate / drains.single.rate),
  );
  const busiest = Math.max(...commandsPerMaster);
  const idlest = Math.min(...commandsPerMaster);
  const spread = busiest / Math.max(1, idlest);
  add(
    "Redis commands per master during the topology's drains",
    commandsPerMaster.map((count) => count.toLocaleString('en')).join(' / '),
    'the idlest master',
    ratio(busiest, Math.max(1, idlest)),
    `≤ ${MASTER_SPREAD_TARGET} ${spread <= MASTER_SPREAD_TARGET ? 'ok' : 'MISSED'}`,
  );
}

/** Spans an event passes through with tracing off: request, accept, claim, apply and their batches. */
const NOOP_SPANS_PER_EVENT = 6;

function tracingRows(add: AddRow, result: TracingResult): void {
  const { capacity, drains, exported, noopSpanNs, plainCallNs } = result;
  const runs = (results: Array<{ rate: number }>) =>
    results.map((run) => perSecond(run.rate)).join(', ');
  add(
    'Ingest capacity, tracing at 1% (OTLP/HTTP)',
    perSecond(capacity.sampled.rate),
    `${perSecond(capacity.off.rate)} tracing off`,
    ratio(capacity.sampled.rate, capacity.off.rate),
  );
  add(
    `Drain, 1 worker, tracing at 1%, mean of ${runs(drains.sampledRuns)}`,
    perSecond(drains.sampled.rate),
    `${perSecond(drains.off.rate)} tracing off (${runs(drains.offRuns)})`,
    ratio(drains.sampled.rate, drains.off.rate),
  );
  // Off, each event still makes a few no-op span calls: their time against the worker's
  // time per event (its drain rate's inverse).
  const perEventNs = NOOP_SPANS_PER_EVENT * Math.max(0, noopSpanNs - plainCallNs);
  add(
    `Tracing off: ${NOOP_SPANS_PER_EVENT} no-op spans per event, ${Math.round(noopSpanNs)} ns each (a plain async call ${Math.round(plainCallNs)} ns)`,
    `${(perEventNs / 1000).toFixed(2)} µs/event`,
    `${(1e6 / drains.off.rate).toFixed(0)} µs/event of 1 worker`,
    ratio(perEventNs / 1000, 1e6 / drains.off.rate),
  );
  add(
    'Spans exported over the phase (1% sampling)',
    `${(exported.bytes / 1024).toFixed(0)} KiB`,
    `${exported.requests} export requests`,
    '—',
  );
}

function storedArticlesRows(add: AddRow, result: StoredArticlesResult): void {
  const { articles, stored, emptyBefore, emptyAfter } = result;
  const empty = (emptyBefore.rate + emptyAfter.rate) / 2;
  const r = stored.rate / empty;
  add(
    `Drain, 1 worker, ${articles.toLocaleString('en')} articles stored (1 create in 4 titled)`,
    perSecond(stored.rate),
    `${perSecond(empty)} empty (${perSecond(emptyBefore.rate)} before, ${perSecond(emptyAfter.rate)} after)`,
    ratio(stored.rate, empty),
    `≥ ${STORED_DRAIN_TARGET} ${r >= STORED_DRAIN_TARGET ? 'ok' : 'MISSED'}`,
  );
}

export function tableRows(figures: Figures): Row[] {
  const rows: Row[] = [];
  const add: AddRow = (figure, service, reference, r, target = '—') =>
    rows.push({ figure, service, reference, ratio: r, target });
  const { capacity, latency, drain, deliveries, lag, hotSlugs, footprint, cli } = figures;
  if (capacity) {
    const { service, floor } = capacity;
    add(
      'Ingest capacity (all 202, p99 < 100 ms)',
      perSecond(service.rate),
      `${perSecond(floor.rate)} floor`,
      ratio(service.rate, floor.rate),
    );
  }
  if (latency) {
    const { service, floor } = latency;
    for (const [name, key] of [
      ['p50', 'p50'],
      ['p99', 'p99'],
      ['p99.9', 'p999'],
    ] as const) {
      const s = service.latencyMs[key];
      const f = floor.latencyMs[key];
      add(`Latency ${name} at ${latency.rate}/s`, millis(s), `${millis(f)} floor`, ratio(s, f));
    }
  }
  if (figures.batches) rows.push(...batchRows(figures.batches));
  if (drain) drainRows(add, drain);
  if (figures.slugs) slugRows(add, figures.slugs);
  if (figures.storedArticles) storedArticlesRows(add, figures.storedArticles);
  if (figures.topology) topologyRows(add, figures.topology);
  if (figures.tracing) tracingRows(add, figures.tracing);
  if (deliveries) deliveryRows(add, deliveries);
  if (lag) {
    add(
      `End-to-end lag p50 at ${lag.rate}/s`,
      millis(lag.service.p50Ms),
      `${millis(lag.floor.p50Ms)} floor`,
      ratio(lag.service.p50Ms, lag.floor.p50Ms),
    );
    add(
      `End-to-end lag p99 at ${lag.rate}/s`,
      millis(lag.service.p99Ms),
      `${millis(lag.floor.p99Ms)} floor`,
      ratio(lag.service.p99Ms, lag.floor.p99Ms),
    );
  }
  if (hotSlugs) {
    for (const burst of hotSlugs.bursts) hotSlugRows(add, burst);
    isolationRows(add, hotSlugs.isolation);
  }
  if (footprint) {
    const { start, end } = footprint;
    const soak = `${footprint.soakSeconds} s soak`;
    const target = `≤ ${FOOTPRINT_GROWTH_TARGET}`;
    for (const [name, key] of [
      ['API RSS', 'apiRssBytes'],
      ['Worker RSS', 'workerRssBytes'],
      ['Redis used_memory', 'redisUsedBytes'],
    ] as const) {
      add(
        `${name}, end / start of ${soak} at ${footprint.rate}/s`,
        `${mebibytes(start[key])} → ${mebibytes(end[key])}`,
        '—',
        ratio(end[key], start[key]),
        `${target} ${within(start[key], end[key])}`,
      );
    }
    soakPaceRows(add, footprint);
  }
  if (cli) rows.push(...cliRows(cli));
  if (figures.fairness) fairnessRows(add, figures.fairness);
  return rows;
}

/** A soak's last minute applied at least this fraction of its first minute's rate. */
export const SOAK_PACE_TARGET = 0.9;

/** Whether one worker kept up over the soak, and whether it slowed down as it went. */
function soakPaceRows(add: AddRow, footprint: FootprintResult) {
  const { pace, soakSeconds, rate } = footprint;
  const soak = `${soakSeconds} s soak at ${rate}/s`;
  add(
    `Soak, applied a second: its last ${pace.windowSeconds} s against its first (${soak})`,
    perSecond(pace.lastPerSecond),
    `${perSecond(pace.firstPerSecond)} first ${pace.windowSeconds} s`,
    ratio(pace.lastPerSecond, pace.firstPerSecond),
    `≥ ${SOAK_PACE_TARGET} ${pace.lastPerSecond >= SOAK_PACE_TARGET * pace.firstPerSecond ? 'ok' : 'MISSED'}`,
  );
  add(
    `Soak, events accepted and not applied when the load stopped (${soak})`,
    thousands(pace.backlogAtEnd),
    `${thousands(footprint.load.acceptedTotal)} accepted in the soak`,
    '—',
  );
}

/** latest.md and latest.json; and cli.md, the cli phase's rows alone, when it ran. */
export function writeResults(facts: RunFacts, figures: Figures, rows: Row[], notes: string[]) {
  const written = writeResultsFile(
    'latest',
    facts,
    [markdownTable(rows), '', ...noteLines(notes)],
    {
      rows,
      notes,
      figures,
    },
  );
  const { cli } = figures;
  if (cli) {
    const cliNotes = [...cli.notes, ...cli.machineNotes];
    const { paths } = writeResultsFile('cli', facts, [
      markdownTable(cliRows(cli)),
      '',
      ...noteLines(cliNotes),
    ]);
    written.paths.push(...paths);
  }
  return written;
}
