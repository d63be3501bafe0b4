// The noisy-neighbour scenario's companion: a second account floods the API with a
// backlog of thousands of events, as fast as it answers, starting before the scenario's
// own (quiet) bot; the workers are killed while they work through it. Once everything has
// drained, the noisy account's events are judged like the quiet one's (checkLedger: each
// accepted event applied exactly once, as a replay says), nothing the API refused may be
// recorded, and the quiet account must not have waited behind the backlog.
import { createPublisher, fetchClient, newAccountFields } from '@ingest/test-harness';
import {
  asFirstComeFirstServed,
  fairnessOf,
  readTimings,
  type FairnessFigures,
} from './fairness-figures.js';
import { checkLedger } from './ledger.js';
import { readLedger, waitForDrain } from './ledger-queries.js';
import { startLoad, type SentEvent } from './load-generator.js';
import { floodReport, type FloodVerdict } from './noisy-report.js';
import { planFlood } from './noisy-workload.js';
import type { Companion, CompanionSetup, CompanionVerdict, FaultContext } from './scenarios.js';

const FLOOD_EVENTS = { quick: 2_000, full: 6_000 };
/**
 * Requests the noisy bot keeps in flight: past the API's 128 places (ADMISSION_CONCURRENCY,
 * a publish holds 1), so that admission control queues and refuses some of them, as it
 * would a real flood; with fewer it never refuses anything.
 */
const FLOOD_IN_FLIGHT = 160;
/** The share of the flood acknowledged before the quiet bot starts: a backlog is waiting. */
const HEAD_START = 0.1;
/** No new flood request starts after this long (see LoadOptions.maxLoadMs). */
const FLOOD_MAX_MS = 60_000;
const DRAIN_TIMEOUT_MS = { quick: 60_000, full: 120_000 };
/**
 * Starved: quiet events accepted behind a backlog were applied after more than this share
 * of it, at the median. One FIFO queue gives about 1; fair queues a few percent, and the
 * SIGKILLs (a killed worker's jobs wait for their locks to lapse) do not move the median.
 */
const MAX_OVERTAKEN_SHARE = 0.5;

export async function startNoisyNeighbour(setup: CompanionSetup): Promise<Companion> {
  const { cluster, log, mode } = setup;
  // An account of its own, made over HTTP like the quiet bot's.
  const noisy = await createPublisher(
    fetchClient(cluster.baseUrl),
    newAccountFields(`${setup.tag}.faults.test`, 'noisy'),
    2,
  );
  const scripts = planFlood({
    tag: `${setup.tag}-noisy`,
    events: FLOOD_EVENTS[mode],
    apiKeys: noisy.apiKeys.length,
    seed: setup.seed,
  });
  const total = scripts.reduce((sum, script) => sum + script.events.length, 0);
  const started = Date.now();
  const flood = startLoad({
    baseUrls: cluster.baseUrls,
    apiKeys: noisy.apiKeys,
    scripts,
    concurrency: FLOOD_IN_FLIGHT,
    // Unpaced: each lane sends its next request as soon as the last one is answered.
    eventsPerSecond: Number.POSITIVE_INFINITY,
    retryBudgetMs: 60_000,
    maxLoadMs: FLOOD_MAX_MS,
    minEvents: total,
    inFlightPerSlug: 1,
    burst: 1,
  });
  // Its failure is reported by alongside and judge; this only keeps it from going unhandled.
  flood.done.catch(() => {});
  await flood.whenProgress(HEAD_START);
  log(
    `  noisy account: ${total} events over ${scripts.length} slugs, ${FLOOD_IN_FLIGHT} requests in flight; ${flood.sentCount()} acknowledged before the quiet load starts`,
  );

  const backlog = async () => {
    const { rows } = await cluster.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_logs
       WHERE account_id = $1 AND status IN ('queued', 'processing')`,
      [noisy.id],
    );
    return rows[0]?.n ?? 0;
  };

  /** From the flood's first request to its last answer. */
  const floodMsOf = (sent: SentEvent[]) =>
    Math.max(0, ...sent.map((event) => event.answeredAt)) - started;
  async function alongside(context: FaultContext): Promise<void> {
    const { sent } = await flood.done;
    const floodMs = floodMsOf(sent);
    const accepted = sent.filter((event) => event.accepted).length;
    context.log(
      `noisy flood done: ${accepted} of ${sent.length} events accepted in ${(floodMs / 1000).toFixed(1)} s, ${await backlog().catch(() => '?')} not yet applied`,
    );
  }

  async function beforeKill(): Promise<string> {
    const waiting = await backlog().catch(() => undefined);
    return waiting === undefined ? '' : ` (${waiting} noisy events not yet applied)`;
  }

  async function judge(): Promise<CompanionVerdict> {
    const { sent, counters } = await flood.done;
    const unfinished = await waitForDrain(cluster.db, noisy.id, DRAIN_TIMEOUT_MS[mode]);
    const snapshot = await readLedger(cluster.db, noisy.id);
    const report = checkLedger(snapshot, sent);
    const problems = [
      ...(unfinished === 0
        ? []
        : [`${unfinished} noisy events still unfinished after ${DRAIN_TIMEOUT_MS[mode]} ms`]),
      ...report.lost.map((text) => `noisy lost: ${text}`),
      ...report.duplicated.map((text) => `noisy duplicated: ${text}`),
      ...report.mismatches.map((text) => `noisy mismatch: ${text}`),
      ...report.unaccepted.map((text) => `noisy not accepted: ${text}`),
      ...refusedButRecorded(sent, snapshot.idempotencyKeys, counters.networkErrors),
    ];
    const timings = await readTimings(cluster.db, setup.account.id, noisy.id);
    const figures = fairnessOf(timings.quiet, timings.noisy);
    problems.push(...starvation(figures));
    // Proof that the starvation check can fail, as for the ledger: on a clean result.
    if (problems.length === 0 && figures.quietBehindBacklog.events > 0) {
      const fifo = fairnessOf(asFirstComeFirstServed(timings.quiet, timings.noisy), timings.noisy);
      if (starvation(fifo).length === 0) {
        problems.push('starvation self-check: a first-come-first-served order went unnoticed');
      }
    }
    const verdict: FloodVerdict = {
      report,
      counters,
      figures,
      total,
      floodMs: floodMsOf(sent),
      problems: problems.length,
    };
    return { problems, ...floodReport(verdict) };
  }

  return { alongside, beforeKill, judge, close: async () => {} };
}

/** The quiet events that waited behind a backlog must have overtaken most of it. */
function starvation(figures: FairnessFigures): string[] {
  const behind = figures.quietBehindBacklog.events;
  if (behind === 0 || figures.overtakenShare <= MAX_OVERTAKEN_SHARE) return [];
  return [
    `quiet account starved: its ${behind} events accepted behind the noisy backlog were applied after ${Math.round(figures.overtakenShare * 100)}% of it (median; at most ${MAX_OVERTAKEN_SHARE * 100}%)`,
  ];
}

/**
 * A request the API refused (429, 503, any answer but a 2xx) must leave nothing behind:
 * its retry then records the event afresh. With no network error in the whole flood,
 * every try was answered, so an event recorded under a key that was only ever refused,
 * or an answer replayed (the noisy bot sends nothing twice on purpose), means a refused
 * try was recorded.
 */
function refusedButRecorded(
  sent: SentEvent[],
  keys: Map<string, string>,
  networkErrors: number,
): string[] {
  if (networkErrors > 0) return [];
  return sent.flatMap(({ planned, accepted, deliveries }) => {
    const what = `${planned.event} ${planned.slug} key ${planned.idempotencyKey}`;
    if (!accepted && keys.has(planned.idempotencyKey)) {
      return [`noisy ${what} was refused (${deliveries.at(-1)?.detail}) but recorded`];
    }
    if (deliveries.some((delivery) => delivery.replayed)) {
      return [`noisy ${what} was answered as a replay: an earlier, refused try was recorded`];
    }
    return [];
  });
}
