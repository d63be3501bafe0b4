// The history mode's table (figure, with the history, on the empty log, ratio, target)
// and its results files, results/history-<N>.{md,json}.
import { SEED_EVENTS, type HistoryResult, type LogFigures } from '../phases/history.js';
import type { ReadTiming } from './history-reads.js';
import type { LockSpan } from './history-locks.js';
import type { RetentionResult, RoundFigures } from './history-retention.js';
import type { FillReport } from './history-fill.js';
import type { DrainResult } from '../phases/drain.js';
import { HISTORY_DAYS } from './history-fill.js';
import { describeWaits } from './wait-sampler.js';
import { percentile } from './percentiles.js';
import {
  markdownTable,
  noteLines,
  writeResultsFile,
  type Row,
  type RunFacts,
} from './results-file.js';

/** Targets of the mode: with the history, against the empty log in the same run. */
export const CAPACITY_RATIO_TARGET = 0.9;
export const READ_P99_RATIO_TARGET = 1.5;
/** The drain beside the history and the stored articles, against the empty log's. */
export const DRAIN_RATIO_TARGET = 0.9;

const millis = (n: number) => (Number.isFinite(n) ? `${n.toFixed(1)} ms` : 'n/a');
const perSecond = (n: number) => (Number.isFinite(n) ? `${Math.round(n)}/s` : 'n/a');
const bytes = (n: number) =>
  n >= 2 ** 30 ? `${(n / 2 ** 30).toFixed(2)} GiB` : `${(n / 2 ** 20).toFixed(1)} MiB`;
const ratioOf = (a: number, b: number) => (b > 0 && Number.isFinite(a / b) ? a / b : Number.NaN);
const shown = (r: number) => (Number.isFinite(r) ? r.toFixed(2) : 'n/a');
const atLeast = (r: number, target: number) => `≥ ${target} ${r >= target ? 'ok' : 'MISS'}`;
const atMost = (r: number, target: number) => `≤ ${target} ${r <= target ? 'ok' : 'OVER'}`;
/** Beyond noise: above every window of the same load without the maintenance. */
const withinNoise = (ms: number, quiet: number[]) =>
  quiet.length === 0 ? 'n/a' : `within noise ${ms <= (quiet.at(-1) ?? 0) ? 'ok' : 'ABOVE'}`;
const thousands = (n: number) => n.toLocaleString('en-US');
/** A read's p99, flagged when some requests failed or the filter found nothing. */
const readP99 = (t: ReadTiming) =>
  `${millis(t.p99Ms)}${t.failures > 0 ? ` (${t.failures} failed)` : ''}` +
  `${t.items === 0 ? ' (0 rows)' : ''}`;

/** CPU milliseconds per event of the worker and of PostgreSQL, as a drain measured them. */
const cpuPerEvent = (run: DrainResult) =>
  ['worker 1', 'postgres']
    .map((name) => `${name} ${(run.cpuMsPerEvent[name] ?? Number.NaN).toFixed(3)}`)
    .join(', ');

function drainRows(rows: Row[], result: HistoryResult, empty: LogFigures, history: LogFigures) {
  if (!empty.drain || !history.drain) return;
  const [h, e] = [history.drain, empty.drain];
  const runs = (d: typeof h) => d.runs.map((run) => perSecond(run.rate)).join(', ');
  const r = ratioOf(h.mean.rate, e.mean.rate);
  rows.push({
    figure:
      `Drain, 1 worker, ${thousands(h.mean.events)} events (1 create in 4 titled), ` +
      `${thousands(result.articles)} articles stored beside the history`,
    service: `${perSecond(h.mean.rate)} (mean of ${runs(h)})`,
    reference: `${perSecond(e.mean.rate)} empty (mean of ${runs(e)})`,
    ratio: shown(r),
    target: atLeast(r, DRAIN_RATIO_TARGET),
  });
  rows.push({
    figure: "Drain: CPU ms per event (ratio: PostgreSQL's)",
    service: cpuPerEvent(h.mean),
    reference: `${cpuPerEvent(e.mean)} empty`,
    ratio: shown(
      ratioOf(h.mean.cpuMsPerEvent['postgres'] ?? NaN, e.mean.cpuMsPerEvent['postgres'] ?? NaN),
    ),
    target: '—',
  });
}

function logRows(rows: Row[], empty: LogFigures, history: LogFigures, rate: number) {
  const add = (figure: string, h: string, e: string, r: number, target = '—') =>
    rows.push({ figure, service: h, reference: `${e} empty`, ratio: shown(r), target });
  const capacity = ratioOf(history.capacity.rate, empty.capacity.rate);
  const searches = (f: LogFigures) => `best of ${f.capacitySearches.map(perSecond).join(', ')}`;
  add(
    'Accept capacity (all 202, p99 < 100 ms)',
    `${perSecond(history.capacity.rate)} (${searches(history)})`,
    `${perSecond(empty.capacity.rate)} (${searches(empty)})`,
    capacity,
    atLeast(capacity, CAPACITY_RATIO_TARGET),
  );
  for (const [name, key] of [
    ['p50', 'p50'],
    ['p99', 'p99'],
  ] as const) {
    const [h, e] = [history.latency.latencyMs[key], empty.latency.latencyMs[key]];
    add(`Accept latency ${name} at ${rate}/s`, millis(h), millis(e), ratioOf(h, e));
  }
  const receipt = (figure: string, h: ReadTiming) => {
    const r = ratioOf(h.p99Ms, empty.receipts.recent.p99Ms);
    add(figure, readP99(h), readP99(empty.receipts.recent), r, atMost(r, READ_P99_RATIO_TARGET));
  };
  receipt('Receipt lookup p99, recent events', history.receipts.recent);
  if (history.receipts.old) {
    receipt(`Receipt lookup p99, events of the last ${HISTORY_DAYS} days`, history.receipts.old);
  }
  for (const search of history.searches) {
    const reference = search.reference ?? search.filter;
    const before = empty.searches.find((s) => s.filter === reference);
    if (before === undefined) continue;
    const r = ratioOf(search.timing.p99Ms, before.timing.p99Ms);
    add(
      `Search p99: ${search.filter}`,
      readP99(search.timing),
      `${readP99(before.timing)}${search.reference === undefined ? '' : ` (${reference})`}`,
      r,
      atMost(r, READ_P99_RATIO_TARGET),
    );
  }
}

function retentionRows(rows: Row[], run: RetentionResult, events: number) {
  const add = (figure: string, value: string, reference = '—', r = '—', target = '—') =>
    rows.push({ figure, service: value, reference, ratio: r, target });
  const expiredDays = run.expired.filter((n) => n.startsWith('webhook_logs')).length;
  add(
    `Retention (${run.retentionDays} days, publishers at ${run.rate}/s): partitions dropped`,
    `${run.dropped.length} of ${expiredDays} expired` +
      (run.held.length > 0 ? `, ${run.held.length} held` : '') +
      (run.left.length > 0 ? `, ${run.left.length} LEFT` : ''),
  );
  for (const [i, round] of run.rounds.entries()) {
    if (round.error === undefined) continue;
    add(`Retention: maintainPartitions round ${i + 1} FAILED`, round.error.slice(0, 120));
  }
  const lengths = run.rounds.map((r) => r.seconds);
  add(
    `Retention: maintainPartitions rounds (${run.dropsPerRound} period each, ${run.roundPauseSeconds} s apart)`,
    `${run.rounds.length} rounds, ${run.seconds.toFixed(1)} s in all`,
    `each ${Math.min(...lengths).toFixed(2)}-${Math.max(...lengths).toFixed(2)} s`,
  );
  // Each round against windows as long in the load before the first: the first round is
  // the steady state (a day's partition, once a day); the worst is what a backlog risks.
  const judged = (label: string, round: RoundFigures) => {
    const { during, quiet } = round;
    add(
      `Retention: accept p99 during ${label} (${during.samples} requests, ${round.seconds.toFixed(2)} s) against ${quiet.windows} windows as long before`,
      `${millis(during.p99Ms)}; ${quiet.higherThanDuring} of ${quiet.windows} windows higher`,
      `median ${millis(percentile(quiet.p99sMs, 0.5))}, highest ${millis(quiet.p99sMs.at(-1) ?? Number.NaN)}`,
      shown(ratioOf(during.p99Ms, percentile(quiet.p99sMs, 0.5))),
      withinNoise(during.p99Ms, quiet.p99sMs),
    );
  };
  const first = run.rounds[0];
  if (first !== undefined) judged('the first round (one day dropped)', first);
  const worst = [...run.rounds].sort(
    (a, b) =>
      a.quiet.higherThanDuring / a.quiet.windows - b.quiet.higherThanDuring / b.quiet.windows,
  )[0];
  if (worst !== undefined && worst !== first) {
    judged(`round ${run.rounds.indexOf(worst) + 1}, the least within noise`, worst);
  }
  const failed = run.load.failures;
  add(
    'Retention: failed requests (the whole load)',
    String(failed),
    '—',
    '—',
    `0 ${failed === 0 ? 'ok' : 'FAIL'}`,
  );
  const others = run.locks.waits.filter((w) => !run.maintenancePids.includes(w.pid));
  const wait = others[0];
  add(
    `Retention: longest lock wait of another backend (pg_locks every ${run.locks.intervalMs} ms)`,
    wait ? `${millis(wait.ms)} (${wait.mode} on ${wait.relation})` : 'none seen',
  );
  const lock = (figure: string, span: LockSpan | undefined) =>
    add(figure, span ? `${millis(span.ms)} (${span.mode} on ${span.relation})` : 'none seen');
  lock(
    'Retention: longest writer-blocking lock on webhook_logs, event_attempts, pending_order_keys',
    run.locks.parentLocks[0],
  );
  lock('Retention: longest writer-blocking lock on a live partition', run.locks.liveLocks[0]);
  lock(
    'Retention: longest writer-blocking lock on a history partition',
    run.locks.partitionLocks[0],
  );
  const statement = run.statements.longest[0];
  add(
    `Retention: longest of its ${run.statements.count} statements`,
    statement ? `${millis(statement.ms)}: ${statement.sql.slice(0, 70)}` : 'n/a',
  );
  // Publishers kept writing meanwhile: their growth is added back to what fell.
  const growth = run.after.liveBytes - run.before.liveBytes;
  const fell = (b: number, a: number) => b - a + growth;
  for (const [name, key] of [
    ["Event-log tables' size", 'eventLogBytes'],
    ['pg_database_size', 'databaseBytes'],
  ] as const) {
    const drop = fell(run.before[key], run.after[key]);
    add(
      `Retention: ${name} before → after (${thousands(events)} events)`,
      `${bytes(run.before[key])} → ${bytes(run.after[key])}`,
      `fell ${bytes(drop)} (+ live growth) of ${bytes(run.expectedDropBytes)} dropped`,
      shown(ratioOf(drop, run.expectedDropBytes)),
    );
  }
}

export function historyRows(result: HistoryResult): Row[] {
  const rows: Row[] = [];
  const { empty, history, fill, retention, latencyRate } = result;
  if (empty && history && latencyRate !== undefined) logRows(rows, empty, history, latencyRate);
  if (empty && history) drainRows(rows, result, empty, history);
  if (fill) {
    rows.push({
      figure: `History fill: ${thousands(fill.events)} events over ${fill.days} days (${fill.lanes} lanes)`,
      service: `${fill.seconds.toFixed(0)} s`,
      reference: `${perSecond(fill.events / fill.seconds)} events`,
      ratio: '—',
      target: '—',
    });
  }
  if (retention) retentionRows(rows, retention, result.events);
  return rows;
}

function fillNotes(result: HistoryResult, fill: FillReport): string[] {
  const slowest = [...fill.perDay].sort(
    (a, b) => b.loadSeconds + b.attachSeconds - (a.loadSeconds + a.attachSeconds),
  )[0];
  return [
    `"Empty" is a second database on the same PostgreSQL, made as the first (migrated, ` +
      `the same partitions) with an API of its own, holding only ${thousands(SEED_EVENTS)} ` +
      `recent events (made as the history's are) in the live day's partition; "with ` +
      `history" is the first, which has the same recent events and ` +
      `${thousands(result.events)} events in ${fill.days} daily partitions before ` +
      `${result.liveFrom ?? '?'}. Both are measured after the fill, in the same minutes: ` +
      'the reads of one then of the other, and the capacity steps and latency parts in ' +
      'turns, alternating which goes first, so that a slow spell of the shared disk falls ' +
      'on both. Each capacity step and latency part starts with the live partitions ' +
      'emptied; the history stays.',
    `Fill: ${fill.seconds.toFixed(0)} s in all; each day loaded into a table of its own ` +
      `(rows, one attempt per event that was queued, VACUUM ANALYZE), then attached. Slowest ` +
      `day: ${slowest?.day ?? 'n/a'}, load ${slowest?.loadSeconds.toFixed(1) ?? '?'} s + ` +
      `attach ${slowest?.attachSeconds.toFixed(1) ?? '?'} s.` +
      (fill.slugLists === undefined
        ? ''
        : ` The maintenance round listed the slugs of ${fill.slugLists.partitions} closed ` +
          `partitions (for slug searches) in ${fill.slugLists.seconds.toFixed(0)} s: ` +
          `${thousands(fill.slugLists.keys)} keys, ` +
          `${(fill.slugLists.bytes / 2 ** 20).toFixed(0)} MiB with indexes.`) +
      (fill.settleSeconds === undefined
        ? ''
        : ` Then a CHECKPOINT and the autovacuum workers were waited for ` +
          `(${fill.settleSeconds.toFixed(0)} s) before either log's figures were taken.`),
  ];
}

function retentionNotes(run: RetentionResult): string[] {
  const growth = run.after.liveBytes - run.before.liveBytes;
  const ownWait = run.locks.waits.find((w) => run.maintenancePids.includes(w.pid));
  return [
    `Retention: ${run.rate}/s of article.create (autocannon, every answer timed) for ` +
      `${run.load.durationSeconds} s; ${run.baseline.toS.toFixed(0)} s in, maintainPartitions ` +
      `ran as the workers run it, one expired period a round, ${run.roundPauseSeconds} s apart ` +
      `(the workers: 60 s). A round's p99 is that of the requests sent while it ran; one ` +
      `window is a sample of one, so the load before the first round ` +
      `(${run.baseline.samples} requests, p99 ${millis(run.baseline.p99Ms)}) is cut into ` +
      `windows as long as the round, back from its start: the noise is their p99s, and a ` +
      `round counts as moving latency beyond it when its p99 is above every one of theirs. ` +
      `The round least within noise is the one with the smallest share of windows higher. ` +
      `Rounds: ${run.rounds
        .map(
          (r, i) =>
            `${i + 1}: ${r.seconds.toFixed(2)} s, p99 ${millis(r.during.p99Ms)}, ` +
            `${r.quiet.higherThanDuring}/${r.quiet.windows} higher`,
        )
        .join('; ')}. ` +
      `The load's own figures over its whole ${run.load.durationSeconds} s: ` +
      `p99 ${millis(run.load.latencyMs.p99)}, max ${millis(run.load.latencyMs.max)}.`,
    `Sizes: the live partitions grew ${bytes(growth)} during the run; the expected fall is ` +
      `pg_total_relation_size of the ${run.expired.length} expired partitions (both tables), ` +
      'read before the run.',
    `Lock spans are from pg_locks sampled every ${run.locks.intervalMs} ms (${run.locks.samples} ` +
      'samples), from the first sample that saw a lock to the last: a lock held for less may ' +
      'be missed; the statement times bound them from above.',
    `The maintenance's own longest wait for a lock: ${ownWait ? `${millis(ownWait.ms)} (${ownWait.mode} on ${ownWait.relation})` : 'none seen'}. ` +
      `Its longest statements: ${run.statements.longest
        .slice(0, 5)
        .map((st) => `${millis(st.ms)} ${st.sql.slice(0, 80)}`)
        .join('; ')}.`,
    ...run.notes,
  ];
}

/** What each log's database waited on while accepting: why its figures are what they are. */
function waitNotes(result: HistoryResult): string[] {
  const { empty, history } = result;
  if (!empty?.waits || !history?.waits) return [];
  return [
    'What the backends waited on while accepting (pg_stat_activity every 5 ms, on the ' +
      "database of the log being measured; WAL, reads and the disk's service times from " +
      "the server's and the kernel's counters over the same steps): " +
      [
        `empty, capacity steps: ${describeWaits(empty.waits.capacity)}`,
        `history, capacity steps: ${describeWaits(history.waits.capacity)}`,
        `empty, latency parts: ${describeWaits(empty.waits.latency)}`,
        `history, latency parts: ${describeWaits(history.waits.latency)}`,
      ].join('; ') +
      '.',
  ];
}

function drainNotes(result: HistoryResult): string[] {
  const { empty, history } = result;
  if (!empty?.drain || !history?.drain) return [];
  return [
    `Drains: one service worker (retention off, so the history stays), each log in turns ` +
      `(empty, history, history, empty), each from emptied live partitions and articles; ` +
      `the history's side then stored ${thousands(result.articles)} articles before its ` +
      `fill. CPU per event, by run: ` +
      [...empty.drain.runs.map((run) => `empty ${cpuPerEvent(run)}`)]
        .concat(history.drain.runs.map((run) => `history ${cpuPerEvent(run)}`))
        .join('; ') +
      '.',
  ];
}

/** Notes that explain how the figures were taken, from the result itself. */
export function historyNotes(result: HistoryResult): string[] {
  return [
    ...(result.fill ? fillNotes(result, result.fill) : []),
    ...drainNotes(result),
    ...waitNotes(result),
    ...(result.retention ? retentionNotes(result.retention) : []),
  ];
}

export function writeHistory(facts: RunFacts, result: HistoryResult, notes: string[]) {
  const rows = historyRows(result);
  const all = [...historyNotes(result), ...notes];
  const body = [
    'Service: with the history. Reference: the same figure on the empty log, same run.',
    '',
    rows.length > 0 ? markdownTable(rows) : '(no figures)',
    '',
    ...noteLines(all),
  ];
  return writeResultsFile(`history-${result.events}`, facts, body, {
    rows,
    notes: all,
    history: result,
  });
}

/** The table, for the console. */
export const historyTable = (result: HistoryResult): string => {
  const rows = historyRows(result);
  return rows.length > 0 ? markdownTable(rows) : '(no figures)';
};
