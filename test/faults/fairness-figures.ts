// How long each account's events waited from accepted to applied while the noisy
// account's backlog drained, read from PostgreSQL (received_at, finished_at). In one
// first-come-first-served queue a quiet event waits for the whole backlog accepted before
// it; in fair queues it overtakes most of it.
import type pg from 'pg';
import { quantile } from './bot-request.js';

export interface Timed {
  sequence: bigint;
  receivedMs: number;
  finishedMs: number;
}

export interface AccountLatency {
  events: number;
  p50: number;
  p99: number;
  max: number;
}

export interface FairnessFigures {
  quiet: AccountLatency;
  noisy: AccountLatency;
  /** Quiet events accepted while at least BACKLOG_AHEAD noisy events were waiting. */
  quietBehindBacklog: AccountLatency;
  /**
   * For those: the median share of the noisy events waiting when each was accepted that
   * were applied before it (about 1 in one FIFO; a few percent in fair queues).
   */
  overtakenShare: number;
  /** The most noisy events accepted and not yet applied at once. */
  peakBacklog: number;
  /** From the first noisy event's acceptance to the last one's application. */
  backlogMs: number;
  /** The last quiet event's application, after the first noisy event's acceptance. */
  quietDoneMs: number;
}

/** Below this many noisy events waiting ahead, a quiet event says little about fairness. */
export const BACKLOG_AHEAD = 100;

async function finishedEvents(db: pg.Pool, accountId: string): Promise<Timed[]> {
  // Rejected events never reach the queue: only those a worker finished.
  const { rows } = await db.query<{ sequence: string; received: string; finished: string }>(
    `SELECT sequence::text AS sequence,
            (extract(epoch FROM received_at) * 1000)::text AS received,
            (extract(epoch FROM finished_at) * 1000)::text AS finished
     FROM webhook_logs
     WHERE account_id = $1 AND status IN ('succeeded', 'failed') AND finished_at IS NOT NULL
     ORDER BY sequence`,
    [accountId],
  );
  return rows.map((row) => ({
    sequence: BigInt(row.sequence),
    receivedMs: Number(row.received),
    finishedMs: Number(row.finished),
  }));
}

function latencyOf(events: Timed[]): AccountLatency {
  const waits = events.map((event) => event.finishedMs - event.receivedMs);
  return {
    events: events.length,
    p50: quantile(waits, 0.5),
    p99: quantile(waits, 0.99),
    max: Math.round(Math.max(0, ...waits)),
  };
}

function peakOf(events: Timed[]): number {
  const changes = events.flatMap((event) => [
    { at: event.receivedMs, by: 1 },
    { at: event.finishedMs, by: -1 },
  ]);
  // At the same instant, applications first: an event applied when another arrives is gone.
  changes.sort((a, b) => a.at - b.at || a.by - b.by);
  let pending = 0;
  let peak = 0;
  for (const change of changes) {
    pending += change.by;
    peak = Math.max(peak, pending);
  }
  return peak;
}

/** Both accounts' finished events, in acceptance order. */
export async function readTimings(
  db: pg.Pool,
  quietAccountId: string,
  noisyAccountId: string,
): Promise<{ quiet: Timed[]; noisy: Timed[] }> {
  const [quiet, noisy] = await Promise.all([
    finishedEvents(db, quietAccountId),
    finishedEvents(db, noisyAccountId),
  ]);
  return { quiet, noisy };
}

export function fairnessOf(quiet: Timed[], noisy: Timed[]): FairnessFigures {
  const behind: Timed[] = [];
  const shares: number[] = [];
  for (const event of quiet) {
    // Accepted before it (acceptance order) and not yet applied when it was accepted.
    const ahead = noisy.filter(
      (other) => other.sequence < event.sequence && other.finishedMs > event.receivedMs,
    );
    if (ahead.length < BACKLOG_AHEAD) continue;
    behind.push(event);
    const overtaken = ahead.filter((other) => other.finishedMs < event.finishedMs).length;
    shares.push(overtaken / ahead.length);
  }
  const start = Math.min(...noisy.map((event) => event.receivedMs));
  const sortedShares = [...shares].sort((a, b) => a - b);
  return {
    quiet: latencyOf(quiet),
    noisy: latencyOf(noisy),
    quietBehindBacklog: latencyOf(behind),
    overtakenShare: sortedShares[Math.floor(sortedShares.length / 2)] ?? 0,
    peakBacklog: peakOf(noisy),
    backlogMs: Math.round(Math.max(0, ...noisy.map((event) => event.finishedMs - start))),
    quietDoneMs: Math.round(Math.max(0, ...quiet.map((event) => event.finishedMs - start))),
  };
}

/**
 * The quiet events as one first-come-first-served queue would have applied them: each
 * just after the last noisy event accepted before it. Proof that the starvation check
 * can fail: on these, it must.
 */
export function asFirstComeFirstServed(quiet: Timed[], noisy: Timed[]): Timed[] {
  return quiet.map((event) => {
    const before = noisy.filter((other) => other.sequence < event.sequence);
    const last = Math.max(event.finishedMs, ...before.map((other) => other.finishedMs));
    return { ...event, finishedMs: last + 1 };
  });
}
