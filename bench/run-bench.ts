// `pnpm bench`: builds the apps, starts the service as production runs it beside a
// minimal floor server and worker, measures each figure beside its reference in the same
// run, prints the table and writes results/latest.{md,json}. See bench/README.md.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runProvenance } from '@ingest/test-harness';
import { parseOptions, USAGE, type BenchOptions } from './bench-options.js';
import { setUpEnvironment, type BenchEnvironment } from './bench-environment.js';
import { measureBatches } from './phases/batches.js';
import { measureCapacity } from './phases/capacity.js';
import { measureCli } from './phases/cli.js';
import { measureDeliveries } from './phases/deliveries.js';
import { measureDrain } from './phases/drain.js';
import { measureSlugs } from './phases/slugs.js';
import { measureStoredArticles } from './phases/stored-articles.js';
import { measureTopology } from './phases/topology.js';
import { measureTracing } from './phases/tracing.js';
import { measureFairness } from './phases/fairness.js';
import { measureFootprint } from './phases/footprint.js';
import { measureHistory, newHistoryResult } from './phases/history.js';
import { measureHotSlugs } from './phases/hot-slugs.js';
import {
  indexCostsTable,
  measureIndexCosts,
  writeIndexCosts,
  type IndexCostsResult,
} from './phases/index-costs.js';
import { measureLag } from './phases/lag.js';
import { measureLatency } from './phases/latency.js';
import { tableRows, writeResults, type Figures } from './report.js';
import { holdBenchLock } from './support/bench-database.js';
import { Cleanup } from './support/cleanup.js';
import { otherWorkNote } from './support/cpu-meter.js';
import { GROUPS } from './support/fixed-rate-load.js';
import { historyTable, writeHistory } from './support/history-report.js';
import { POOL_SIZE, PROFILE_DIR, WORKER_CONCURRENCY } from './support/launchers.js';
import { markdownTable, type RunFacts } from './support/results-file.js';

const startedAt = new Date();
// The commit, the tree's state, the machine and its load, before the run changes any of them.
const provenance = runProvenance();
const started = performance.now();
const seconds = () => (performance.now() - started) / 1000;
const log = (line: string) => console.log(`${seconds().toFixed(0).padStart(4)}s ${line}`);

let options: BenchOptions;
try {
  options = parseOptions(process.argv.slice(2));
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
const { plan } = options;
const cleanup = new Cleanup();

// Whatever happens, the run ends: processes stopped, database dropped, Redis gone.
let aborting = false;
async function abort(why: string, code: number): Promise<never> {
  aborting = true;
  log(why);
  await cleanup.runAll(log);
  process.exit(code);
}
setTimeout(
  () => void abort(`watchdog: the run passed ${plan.watchdogSeconds} s; stopping it`, 3),
  plan.watchdogSeconds * 1000,
).unref();
process.once('SIGINT', () => void abort('interrupted: cleaning up', 130));
process.once('SIGTERM', () => void abort('terminated: cleaning up', 143));

let indexCosts: IndexCostsResult | undefined;
const history =
  options.history === undefined
    ? undefined
    : newHistoryResult(options.history, options.plan.storedArticles);

async function runPhases(env: BenchEnvironment, figures: Figures): Promise<void> {
  const { phases } = options;
  if (history) return measureHistory(env, history);
  if (options.indexCosts) {
    indexCosts = await measureIndexCosts(env);
    return;
  }
  const fallback = (what: string) => {
    env.notes.push(`${what} ran at --rate=${options.fallbackRate}/s: capacity was not measured`);
    return options.fallbackRate;
  };
  if (phases.has('capacity')) figures.capacity = await measureCapacity(env);
  if (phases.has('latency')) {
    const half = figures.capacity ? Math.round(figures.capacity.floor.rate / 2) : 0;
    figures.latency = await measureLatency(env, half > 0 ? half : fallback('latency'));
  }
  if (phases.has('batches')) {
    figures.batches = await measureBatches(env, figures.capacity?.service);
  }
  if (phases.has('drain')) figures.drain = await measureDrain(env);
  if (phases.has('slugs')) figures.slugs = await measureSlugs(env);
  if (phases.has('stored-articles')) figures.storedArticles = await measureStoredArticles(env);
  if (phases.has('topology'))
    figures.topology = await measureTopology(env, figures.capacity?.service.rate);
  if (phases.has('tracing'))
    figures.tracing = await measureTracing(env, figures.capacity?.service.rate);
  if (phases.has('lag')) figures.lag = await measureLag(env);
  if (phases.has('hot-slugs')) figures.hotSlugs = await measureHotSlugs(env);
  if (phases.has('footprint')) {
    const half = figures.capacity ? Math.round(figures.capacity.service.rate / 2) : 0;
    figures.footprint = await measureFootprint(env, half > 0 ? half : fallback('footprint'));
  }
  if (phases.has('cli')) figures.cli = await measureCli(env, figures.drain?.service1.rate);
  if (phases.has('fairness')) {
    figures.fairness = await measureFairness(env, figures.capacity?.service.rate);
  }
  // Last: it is the only phase with webhook endpoints, and removes them when it ends.
  if (phases.has('deliveries')) figures.deliveries = await measureDeliveries(env);
  env.notes.push(...backlogNotes(figures));
}

/** A phase whose rate one worker cannot keep up with measures a growing backlog. */
function backlogNotes({ drain, lag, footprint }: Figures): string[] {
  const oneWorker = drain?.service1.rate;
  if (oneWorker === undefined || !Number.isFinite(oneWorker)) return [];
  return [
    ...(lag && lag.rate > oneWorker ? [`the lag run (${lag.rate}/s)`] : []),
    ...(footprint && footprint.rate > oneWorker ? [`the soak (${footprint.rate}/s)`] : []),
  ].map(
    (what) =>
      `One service worker drains ${Math.round(oneWorker)}/s, less than ${what}: its queue ` +
      'grew throughout, so that figure measures a backlog.',
  );
}

function standingNotes(): string[] {
  return [
    'Capacity and latency measure the accept path: no worker (service or floor) runs meanwhile.',
    `Service: tsup bundles under node, LOG_LEVEL=info to a file, DATABASE_POOL_SIZE=${POOL_SIZE}, ` +
      `WORKER_CONCURRENCY=${WORKER_CONCURRENCY}, admission control on, per-account rate limits on (limits raised) except in fairness (c), which runs the shipped defaults.`,
    'Floor: one pg INSERT + one BullMQ add per request, key checked in a Map; floor worker: one ' +
      'transaction per job (INSERT article, UPDATE log row), concurrency 32, same pool size.',
    `Load: autocannon in the runner process, ${plan.connections} connections, pipelining 1, ` +
      `fixed rate from ${GROUPS} staggered instances, outside the CPU ceiling (first note).`,
  ];
}

function profilesSince(): string[] {
  try {
    return readdirSync(PROFILE_DIR)
      .map((name) => join(PROFILE_DIR, name))
      .filter((path) => statSync(path).mtimeMs >= startedAt.getTime());
  } catch {
    return [];
  }
}

const figures: Figures = {};
let notes: string[] = [];
let failure: string | undefined;
let env: BenchEnvironment | undefined;
const what = history
  ? `history of ${history.events} events`
  : options.indexCosts
    ? 'index costs'
    : `phases ${[...options.phases].join(', ')}`;
log(`pnpm bench: ${what}${options.quick ? ' (quick)' : ''}`);
try {
  cleanup.add('bench lock', await holdBenchLock());
} catch (error) {
  // Before anything is set up or written: the other run's results stay as they are.
  log((error as Error).message);
  process.exit(1);
}
try {
  env = await setUpEnvironment(options, cleanup, log);
  await runPhases(env, figures);
  // The profile is written when the process exits on its own, after SIGTERM.
  if (options.cpuProfile) await env.api.proc.stop('SIGTERM', 60_000);
} catch (error) {
  failure = (error as Error).message;
  // Once aborting, what fails next (processes stopped under a phase) is its consequence.
  if (!aborting) log(`bench failed: ${failure}`);
} finally {
  notes = [...(env?.notes ?? []), ...otherWorkNote(env?.cpuHistory ?? []), ...standingNotes()];
  await cleanup.runAll(log);
}

const rows = tableRows(figures);
const wallSeconds = seconds();
const facts: RunFacts = {
  date: startedAt.toISOString(),
  ...provenance,
  wallSeconds,
  argv: process.argv.slice(2),
  ...(failure ? { failure } : {}),
};
// The index-costs and history modes write results of their own and leave latest.* as they were.
const { markdown, paths } = history
  ? writeHistory(facts, history, notes)
  : options.indexCosts
    ? writeIndexCosts(facts, indexCosts, notes)
    : writeResults(facts, figures, rows, notes);
const table = rows.length > 0 ? markdownTable(rows) : '(no figures)';
const printed = history ? historyTable(history) : undefined;
console.log(`\n${printed ?? (options.indexCosts ? indexCostsTable(indexCosts) : table)}\n`);
for (const note of notes) console.log(`- ${note}`);
log(`wrote ${paths.join(' and ')} (${markdown.length} bytes) in ${wallSeconds.toFixed(0)} s`);
if (options.cpuProfile) {
  const profiles = profilesSince();
  log(profiles.length > 0 ? `CPU profiles: ${profiles.join(', ')}` : 'no CPU profile was written');
}
if (failure) log(USAGE.split('\n')[0] ?? '');
process.exit(failure ? 1 : 0);
