// One scenario from start to verdict: a fresh account and fresh slugs, the load (of the
// scenario's own shape, or the run's) with the fault injected part-way through, a bounded
// wait for the workers to finish, then the ledger checks, and the companion's if it has one.
import { createPublisher, fetchClient, newAccountFields } from '@ingest/test-harness';
import type { BotCounters } from './bot-request.js';
import type { Cluster } from './harness.js';
import { checkLedger, type LedgerReport } from './ledger.js';
import { readLedger, waitForDrain, type LedgerSnapshot } from './ledger-queries.js';
import { overlapOf, startLoad, type SentEvent } from './load-generator.js';
import { checkReceipts } from './receipts-check.js';
import type { CompanionVerdict, FaultContext, Scenario } from './scenarios.js';
import { planWorkload, type WorkloadShape } from './workload.js';

export interface RunSettings {
  runTag: string;
  seed: number;
  mode: 'quick' | 'full';
  /** The traffic of a scenario that does not bring its own shape. */
  shape: WorkloadShape;
  eventsPerSecond: number;
  concurrency: number;
  outageMs: number;
  drainTimeoutMs: number;
  /** The fault is injected once this share of the events has been sent (or of maxLoadMs). */
  faultAt: number;
  /** No new event starts after this long, unless fewer than minEventsSent are done (see LoadOptions). */
  maxLoadMs: number;
  minEventsSent: number;
}

export interface ScenarioResult {
  scenario: Scenario;
  events: number;
  shape: WorkloadShape;
  /** How much the events of a slug were in flight together (see overlapOf). */
  overlap: { overlapped: number; peak: number };
  counters: BotCounters;
  report: LedgerReport;
  /** Events the plan had; fewer are sent when maxLoadMs runs out first. */
  planned: number;
  /** Events still queued or processing when the wait ran out. */
  unfinished: number;
  /** Distinct events the workers' outbox reconciler had to queue again. */
  requeued: number;
  /**
   * Problems outside the ledger: the fault failed, a process died, receipts disagree, the
   * companion's checks failed.
   */
  problems: string[];
  /** What the scenario's companion (webhook receivers, a noisy neighbour) found, if any. */
  companion?: CompanionVerdict;
  /** What the checks read, kept for the ledger's self-check. */
  snapshot: LedgerSnapshot;
  sent: SentEvent[];
  loadMs: number;
  drainMs: number;
  totalMs: number;
}

const REQUEUE_LINE = /recorded event was not in the queue|its job had ended; retried/;
/** The distinct event ids named by log lines. */
const eventIdsIn = (lines: string[]): string[] => [
  ...new Set(lines.flatMap((line) => /"eventId":"([^"]+)"/.exec(line)?.[1] ?? [])),
];

export async function runScenario(
  cluster: Cluster,
  scenario: Scenario,
  index: number,
  settings: RunSettings,
  log: (line: string) => void,
): Promise<ScenarioResult> {
  const started = Date.now();
  const problems: string[] = [];
  const exitsBefore = cluster.unexpectedExits.length;
  const requeuedBefore = new Set(eventIdsIn(cluster.linesMatching(REQUEUE_LINE)));
  const tag = `${settings.runTag}-${index}`;
  // A fresh account per scenario, with two keys, made over HTTP as a publisher would.
  const account = await createPublisher(
    fetchClient(cluster.baseUrl),
    newAccountFields(`${tag}.faults.test`, 'bot'),
    2,
  );
  // Before the load, so that it sees all of it (webhook endpoints are told of every change).
  const companion = await scenario.companion?.({
    cluster,
    account,
    log,
    tag,
    mode: settings.mode,
    seed: settings.seed + index,
  });
  const shape = scenario.shape?.[settings.mode] ?? settings.shape;
  const scripts = planWorkload({
    tag,
    slugs: shape.slugs,
    minEvents: shape.minEvents,
    maxEvents: shape.maxEvents,
    mix: shape.mix,
    duplicateRate: 0.12,
    invalidRate: 0.03,
    apiKeys: account.apiKeys.length,
    seed: settings.seed + index,
  });
  const total = scripts.reduce((sum, script) => sum + script.events.length, 0);
  const inFlight =
    (shape.inFlightPerSlug > 1 ? `, up to ${shape.inFlightPerSlug} of a slug in flight` : '') +
    (shape.batch === undefined ? '' : `, in batches of up to ${shape.batch}`);
  log(
    `${scenario.name}: ${total} events over ${scripts.length} slugs${inFlight}; fault: ${scenario.fault}`,
  );

  const load = startLoad({
    baseUrls: cluster.baseUrls,
    apiKeys: account.apiKeys,
    scripts,
    concurrency: settings.concurrency,
    eventsPerSecond: settings.eventsPerSecond,
    retryBudgetMs: 60_000,
    maxLoadMs: settings.maxLoadMs,
    minEvents: settings.minEventsSent,
    inFlightPerSlug: shape.inFlightPerSlug,
    burst: shape.burst,
    batch: shape.batch,
  });
  const progress = setInterval(
    () => log(`  ${load.sentCount()}/${total} events acknowledged`),
    3_000,
  );
  const context: FaultContext = {
    cluster,
    log: (line) => log(`  ${line}`),
    outageMs: settings.outageMs,
    whenProgress: (fraction) => load.whenProgress(fraction),
    beforeKill: companion === undefined ? undefined : () => companion.beforeKill(),
  };
  const fault = (async () => {
    await load.whenProgress(settings.faultAt);
    await scenario.inject(context);
  })().catch((error: Error) => {
    problems.push(`fault injection failed: ${error.message}`);
  });
  // From the start of the load, on a timeline of its own (receivers coming back).
  const alongside = companion?.alongside(context).catch((error: Error) => {
    problems.push(`companion failed: ${error.message}`);
  });
  const [{ sent, counters }] = await Promise.all([load.done, fault]).finally(() =>
    clearInterval(progress),
  );
  const loadMs = Date.now() - started;
  const overlap = overlapOf(sent);
  log(
    `  load done in ${(loadMs / 1000).toFixed(1)} s (${overlap.overlapped} events sent while another of their slug was in flight, at most ${overlap.peak} at once); waiting for the workers`,
  );

  const drainStarted = Date.now();
  const unfinished = await waitForDrain(cluster.db, account.id, settings.drainTimeoutMs);
  const drainMs = Date.now() - drainStarted;
  if (unfinished !== 0) {
    problems.push(`${unfinished} events still unfinished after ${settings.drainTimeoutMs} ms`);
  }
  const snapshot = await readLedger(cluster.db, account.id);
  const report = checkLedger(snapshot, sent);
  problems.push(
    ...(await checkReceipts(cluster.baseUrl, account.apiKeys[0] ?? '', snapshot.rows, 25)),
  );
  await alongside; // its timeline may go on past the load, bounded
  const verdict = await companion?.judge().finally(() => companion.close());
  if (verdict !== undefined) {
    log(`  ${verdict.summary}`);
    problems.push(...verdict.problems);
  }
  problems.push(...cluster.unexpectedExits.slice(exitsBefore));
  return {
    scenario,
    planned: total,
    events: sent.length,
    shape,
    overlap,
    counters,
    report,
    unfinished,
    requeued: eventIdsIn(cluster.linesMatching(REQUEUE_LINE)).filter(
      (id) => !requeuedBefore.has(id),
    ).length,
    problems,
    companion: verdict,
    snapshot,
    sent,
    loadMs,
    drainMs,
    totalMs: Date.now() - started,
  };
}

export const passed = (result: ScenarioResult): boolean =>
  result.report.lost.length === 0 &&
  result.report.duplicated.length === 0 &&
  result.report.mismatches.length === 0 &&
  result.report.unaccepted.length === 0 &&
  result.problems.length === 0;
