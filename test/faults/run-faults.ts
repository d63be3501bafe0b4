// `pnpm test:faults [--quick] [--topology] [--only=a,b] [--seed=N] [--logs]`: the fault-injection
// suite. It starts a private PostgreSQL and Redis, an API and two workers (with --topology: a
// Redis Cluster of 3 masters with a replica each, PgBouncer in front of PostgreSQL, a read
// replica, two APIs and three workers), then for each scenario
// sends a bot's traffic while injecting one fault, and checks that every accepted event
// was applied exactly once, in order. Exits 1 if anything was lost, doubled or wrong.
import { fileURLToPath } from 'node:url';
import { runProvenance } from '@ingest/test-harness';
import { startCluster, type Cluster } from './harness.js';
import { selfCheckLedger } from './ledger-self-check.js';
import { companionReport, findings, table, writeLogs, writeResults } from './report.js';
import { passed, runScenario, type RunSettings, type ScenarioResult } from './run-scenario.js';
import { SCENARIOS } from './scenarios.js';
import { SPREAD_MIX } from './workload.js';

const args = process.argv.slice(2);
const topology = args.includes('--topology');
const RESULTS_PATH = fileURLToPath(
  new URL(topology ? './results/latest-topology.md' : './results/latest.md', import.meta.url),
);
const LOGS_DIR = fileURLToPath(new URL('./results/logs/', import.meta.url));
// A run that hangs must still clean up and fail, well before CI's own timeout.
const WATCHDOG_MS = 10 * 60_000;

const quick = args.includes('--quick');
const option = (name: string) =>
  args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const only = option('only')?.split(',');
const seed = Number(option('seed') ?? Date.now() % 1_000_000);

// Sized for a 2-core machine: the full run in about 3 minutes, --quick in about 1.5.
const settings: RunSettings = {
  runTag: `f${Date.now().toString(36)}`,
  seed,
  mode: quick ? 'quick' : 'full',
  // A scenario without a shape of its own: many slugs, a few events each, one at a time.
  shape: {
    slugs: quick ? 40 : 80,
    minEvents: quick ? 3 : 4,
    maxEvents: quick ? 7 : 8,
    mix: SPREAD_MIX,
    inFlightPerSlug: 1,
    burst: 1,
  },
  eventsPerSecond: quick ? 45 : 55,
  concurrency: 12,
  outageMs: quick ? 3_000 : 5_000,
  drainTimeoutMs: quick ? 60_000 : 90_000,
  faultAt: 0.3,
  maxLoadMs: quick ? 8_000 : 16_000,
  minEventsSent: quick ? 50 : 120,
};

const started = Date.now();
// The commit, the tree's state, the machine and its load, before the suite adds its own.
const provenance = runProvenance();
const log = (line: string) =>
  console.log(`[faults ${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s] ${line}`);

let starting: Promise<Cluster> | undefined;
let cleaning: Promise<void> | undefined;
// Interrupted while the cluster starts: let the start finish (its PostgreSQL may be half
// up), then take it all down, rather than leave a cluster nobody will stop.
const cleanUp = () =>
  (cleaning ??= (async () => {
    const cluster = await starting?.catch(() => undefined);
    await cluster?.destroy();
  })());
let aborting = false;
const abort = (reason: string) => {
  if (aborting) return;
  aborting = true;
  console.error(`[faults] ${reason}: cleaning up`);
  void cleanUp().finally(() => process.exit(1));
};
// `on`, not `once`: Ctrl-C reaches this process twice (from the terminal, and relayed by
// the tsx CLI), and a second, unhandled SIGINT would kill it halfway through the clean-up.
process.on('SIGINT', () => abort('interrupted'));
process.on('SIGTERM', () => abort('terminated'));
const watchdog = setTimeout(
  () => abort(`still running after ${WATCHDOG_MS / 1000} s`),
  WATCHDOG_MS,
);
watchdog.unref();

async function main(): Promise<boolean> {
  const scenarios = SCENARIOS.filter(
    (scenario) =>
      (scenario.only === undefined || scenario.only === (topology ? 'topology' : 'single')) &&
      (only ? only.includes(scenario.name) : !(quick && scenario.fullOnly)),
  );
  if (scenarios.length === 0) throw new Error(`no scenario matches --only=${only?.join(',')}`);
  log(
    `mode ${quick ? 'quick' : 'full'}, seed ${seed}, scenarios: ${scenarios.map((s) => s.name).join(', ')}`,
  );
  log(
    topology
      ? 'starting the topology: private PostgreSQL with a read replica and PgBouncer, a Redis Cluster (3 masters, 3 replicas), 2 APIs and 3 workers'
      : 'starting private PostgreSQL and Redis, the API and 2 workers',
  );
  starting = startCluster({ workers: topology ? 3 : 2, log, topology });
  const cluster = await starting;
  const redisAt = cluster.redisCluster?.nodes.join(',') ?? cluster.redis?.url;
  log(
    `ready: API on ${cluster.baseUrls.join(', ')}, PostgreSQL ${cluster.postgres.url}, Redis ${redisAt}`,
  );

  const results: ScenarioResult[] = [];
  for (const [index, scenario] of scenarios.entries()) {
    const healed = await cluster.heal();
    if (healed.length > 0) log(`restarted ${healed.join(', ')} left dead by the previous scenario`);
    const result = await runScenario(cluster, scenario, index, settings, log);
    results.push(result);
    const { report } = result;
    log(
      `${scenario.name}: ${passed(result) ? 'ok' : 'FAIL'}; accepted ${report.accepted}, applied ${report.applied} (${report.succeeded} succeeded, ${report.failedAsExpected} failed as the replay says), lost ${report.lost.length}, duplicated ${report.duplicated.length}, mismatches ${report.mismatches.length}, ${(result.totalMs / 1000).toFixed(1)} s`,
    );
  }

  // Proof that the checks can fail: tamper with clean scenarios' ledgers in memory.
  const clean = results.filter(passed).sort((a, b) => b.events - a.events);
  const { missed, skipped } = selfCheckLedger(clean);
  const selfCheck =
    clean.length === 0
      ? 'not run (no clean scenario)'
      : [
          missed.length === 0 ? 'every tamper caught' : `MISSED: ${missed.join('; ')}`,
          ...(skipped.length === 0
            ? []
            : [`skipped (nothing to tamper with): ${skipped.join('; ')}`]),
        ].join('; ');
  log(`ledger self-check: ${selfCheck}`);

  const wallMs = Date.now() - started;
  console.log(`\n${table(results)}\n`);
  const companions = companionReport(results);
  if (companions.length > 0) console.log(companions.join('\n'));
  const details = findings(results);
  if (details.length > 0) console.log(`${details.join('\n')}\n`);
  await writeResults(RESULTS_PATH, results, {
    mode: `${quick ? 'quick' : 'full'}${topology ? ', on the topology: Redis Cluster (3 masters, 3 replicas), PgBouncer 1.18 (transaction mode), a read replica, two APIs, three workers' : ''}`,
    seed,
    provenance,
    wallMs,
    startedAt: new Date(started),
    selfCheck,
  });
  log(`results written to ${RESULTS_PATH}`);
  const ok = results.every(passed) && missed.length === 0;
  // The processes' own logs are what a failure is diagnosed from.
  if (!ok || args.includes('--logs')) {
    await writeLogs(LOGS_DIR, cluster.logs());
    log(`process logs written to ${LOGS_DIR}`);
  }
  return ok;
}

let ok = false;
try {
  ok = await main();
} catch (error) {
  console.error(`[faults] the run failed: ${(error as Error).stack ?? String(error)}`);
} finally {
  log('cleaning up');
  await cleanUp();
  clearTimeout(watchdog);
}
log(ok ? 'every scenario passed' : 'FAILED');
process.exit(ok ? 0 : 1);
