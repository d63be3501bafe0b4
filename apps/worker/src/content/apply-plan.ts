// The apply batcher's decisions, apart from the database: how many followers each run may
// take, which run a head brings, in which rounds the changes go, and what to try next when
// a shared transaction failed. apply-batcher.ts does the I/O around them.
import { databaseFailureOf, type Submitted } from '@ingest/db';
import { linesOf, type EventRow, type Line, type RunRequest } from '@ingest/event-log';
import type { JobRef } from '@ingest/queue';
import type { WorkerDeps } from '../deps.js';
import { routeEvent, type RoutedEvent } from './route-event.js';

/** Events in one transaction at most, runs included (the heads share what is left). */
export const MAX_EVENTS_PER_TRANSACTION = 256;

/** Per head id, how many followers its run may take (lowered after a follower failed). */
export type RunCaps = ReadonlyMap<string, number>;

interface Keyed {
  row: { id: string };
  /** The attempt its claim opened; null when its job only read it (first delivery). */
  attempt: number | null;
}

/** A follower that can be applied in its head's run. */
export interface RoutedFollower {
  row: EventRow;
  routed: RoutedEvent;
}

/**
 * A change inside a shared transaction threw: the transaction is unusable. Names what to
 * try without: the heads whose own change failed, and the runs to end before the
 * follower whose change failed (by head id, the number of followers to keep).
 */
export class ChangeFailed extends Error {
  constructor(
    readonly heads: ReadonlySet<string>,
    readonly cuts: RunCaps,
    readonly reason: unknown,
  ) {
    super('a change of a shared transaction failed');
  }
}

/**
 * Events of one line applied in one call, in line order: consecutive events of one type
 * (a busy slug's updates, say). `from` is the first's place in its line: 0 for the head.
 */
export interface Step {
  headId: string;
  from: number;
  events: RoutedEvent[];
}

/** A line (its head, then its run) as steps: consecutive events of one type fold into one. */
export function stepsOf(headId: string, line: RoutedEvent[]): Step[] {
  const steps: Step[] = [];
  line.forEach((routed, place) => {
    const step = steps.at(-1);
    if (step !== undefined && step.events.at(-1)?.event === routed.event) step.events.push(routed);
    else steps.push({ headId, from: place, events: [routed] });
  });
  return steps;
}

/** The failure of steps applied in one call: their heads fail, or their runs end before them. */
export function stepsFailed(steps: Step[], reason: unknown): ChangeFailed {
  const heads = new Set<string>();
  const cuts = new Map<string, number>();
  for (const { headId, from, events } of steps) {
    if (from === 0) heads.add(headId);
    // A follower's place in its run is its place in the line less the head's.
    if (from > 0 || events.length > 1) cuts.set(headId, Math.max(0, from - 1));
  }
  return new ChangeFailed(heads, cuts, reason);
}

/**
 * The heads once each. A second run of an event in the batch (a stalled job taken again
 * while its first run waited) is left out, and settleBatch answers it as a run that
 * changed nothing. A run that claimed its event is kept over one that only read it: the
 * claim made the event `processing`, so the reader's lock would find nothing to apply.
 */
export function uniqueHeads<Head extends Keyed>(heads: Head[]): Head[] {
  const kept = new Map<string, Head>();
  for (const head of heads) {
    const first = kept.get(head.row.id);
    if (first === undefined || (first.attempt === null && head.attempt !== null)) {
      kept.set(head.row.id, head);
    }
  }
  return heads.filter((head) => kept.get(head.row.id) === head);
}

/** Each head's run gets an equal share of the transaction's room, or less where cut. */
export function runRequestsOf(heads: Keyed[], caps: RunCaps): RunRequest[] {
  const share = Math.floor((MAX_EVENTS_PER_TRANSACTION - heads.length) / heads.length);
  return heads.map(({ row, attempt }) => ({
    headId: row.id,
    claimed: attempt !== null,
    maxFollowers: Math.min(share, caps.get(row.id) ?? share),
  }));
}

/**
 * The followers that can be applied: the run up to the first that no longer validates,
 * which stays queued and so becomes the next head, failing as it would alone.
 */
export function routeRun(deps: Pick<WorkerDeps, 'config'>, run: EventRow[]): RoutedFollower[] {
  const followers: RoutedFollower[] = [];
  for (const row of run) {
    try {
      followers.push({ row, routed: routeEvent(row, deps.config.content) });
    } catch {
      break;
    }
  }
  return followers;
}

/**
 * Lines (each in line order) as rounds: round n holds the n-th item of every line that
 * has one. Inside a round no two items share a line, and each line's order holds across
 * rounds.
 */
export function roundsOf<Item>(lines: Item[][]): Item[][] {
  const rounds = Math.max(0, ...lines.map((line) => line.length));
  return Array.from({ length: rounds }, (_, round) =>
    lines.flatMap((line) => {
      const item = line[round];
      return item === undefined ? [] : [item];
    }),
  );
}

/**
 * What a commit lets through: the next queued event of every line an applied head stood
 * in (each of its order keys: a rename's old and new slug), and the jobs of the followers
 * its run applied, which would otherwise sit parked until their safety net ran out. A
 * head another run had finished wakes nothing here: that run woke its lines.
 */
export function toWake(
  heads: Array<{ row: EventRow }>,
  applied: ReadonlyMap<string, { followers: Array<{ row: EventRow }> }>,
): { lines: Line[]; appliedInRuns: JobRef[] } {
  return {
    lines: [...new Map(heads.map(({ row }) => [row.id, row])).values()]
      .filter((row) => applied.has(row.id))
      .flatMap((row) => linesOf(row)),
    appliedInRuns: [...applied.values()].flatMap(({ followers }) =>
      followers.map(({ row }) => ({
        eventId: row.id,
        event: row.event,
        requestId: row.requestId,
        accountId: row.accountId,
      })),
    ),
  };
}

/**
 * Applies a batch of heads together and answers each. When that fails it tries again, in
 * smaller parts: a follower that failed ends its run (the same heads again, that run cut
 * before it); a head that failed goes alone, then the rest together; a shared statement
 * that failed (a deadlock with another transaction, say) sends every head alone. A head
 * alone that fails is rejected with its own error. While the database is unreachable,
 * every head is rejected at once: trying parts would only fail again.
 */
export async function settleBatch<Head extends Keyed, Answer>(
  batch: Array<Submitted<Head, Answer | undefined>>,
  applyTogether: (heads: Head[], caps: RunCaps) => Promise<Map<string, Answer>>,
  caps: RunCaps = new Map(),
): Promise<void> {
  try {
    const applied = await applyTogether(
      batch.map((waiting) => waiting.item),
      caps,
    );
    // A second run of the same event in the batch changed nothing (see uniqueHeads).
    const kept = new Set(uniqueHeads(batch.map((waiting) => waiting.item)));
    for (const { item, resolve } of batch) {
      resolve(kept.has(item) ? applied.get(item.row.id) : undefined);
    }
  } catch (error) {
    const reason = error instanceof ChangeFailed ? error.reason : error;
    if (databaseFailureOf(reason) === 'unreachable') {
      for (const waiting of batch) waiting.reject(reason);
      return;
    }
    if (error instanceof ChangeFailed && error.heads.size === 0 && error.cuts.size > 0) {
      await settleBatch(batch, applyTogether, new Map([...caps, ...error.cuts]));
      return;
    }
    if (batch.length === 1) {
      batch[0]?.reject(reason);
      return;
    }
    const merged = new Map([...caps, ...(error instanceof ChangeFailed ? error.cuts : [])]);
    const failed = error instanceof ChangeFailed && error.heads.size > 0 ? error.heads : undefined;
    const alone = failed ? batch.filter((waiting) => failed.has(waiting.item.row.id)) : batch;
    for (const waiting of alone) await settleBatch([waiting], applyTogether, merged);
    if (failed) {
      const rest = batch.filter((waiting) => !failed.has(waiting.item.row.id));
      if (rest.length > 0) await settleBatch(rest, applyTogether, merged);
    }
  }
}
