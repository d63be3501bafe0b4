import type { EventResult } from '@ingest/contracts';
import { createGroupCommit, databaseFailureOf, type Submitted } from '@ingest/db';
import {
  linesOf,
  lockHeadsAndRuns,
  recordApplied,
  type AppliedEvent,
  type EventRow,
} from '@ingest/event-log';
import type { Logger } from '@ingest/logger';
import type { WorkerDeps } from './deps.js';
import type { Waker } from './order-wake.js';
import {
  applyRound,
  categoriesNamedBy,
  ChangeFailed,
  createCategoryResolver,
  routeEvent,
  stepsOf,
  type ApplyScope,
  type CategoryResolver,
  type RoutedEvent,
} from './processors/index.js';

/** An event claimed by this run (its attempt open) and routed: first in its lines. */
export interface ClaimedHead {
  row: EventRow;
  attempt: number;
  routed: RoutedEvent;
  log: Logger;
}

/** An event applied right behind its head, in the same transaction. */
export interface Follower {
  row: EventRow;
  result: EventResult;
  log: Logger;
}

export interface Applied {
  result: EventResult;
  /** The head's run: the events behind it in its line, in line order. */
  followers: Follower[];
}

export interface ApplyBatcher {
  /**
   * Applies the head's change, then its run's, and records them, in one commit. Resolves
   * undefined when another run had finished the head already (nothing was changed);
   * rejects with the head's own error, or the database's.
   */
  apply(head: ClaimedHead): Promise<Applied | undefined>;
}

/** Heads in one transaction at most: enough to amortise it, few enough to hold locks briefly. */
const MAX_HEADS_PER_TRANSACTION = 32;
/** Events in one transaction at most, runs included (the heads share what is left). */
const MAX_EVENTS_PER_TRANSACTION = 256;

type Waiting = Submitted<ClaimedHead, Applied | undefined>;
/** Per head id, how many followers its run may take (lowered after a follower failed). */
type RunCaps = ReadonlyMap<string, number>;

/** Changes of a shared transaction failed: these heads, or these runs from this position. */
class BatchFailed extends Error {
  constructor(
    readonly heads: ReadonlySet<string>,
    readonly cuts: RunCaps,
    readonly reason: unknown,
  ) {
    super('a change of a shared transaction failed');
  }
}

/**
 * Group commit for the worker, along lines and across them. Heads claimed together are
 * about different lines and share one transaction: one lock statement, the changes, one
 * statement recording every outcome, one commit. A head with a single order key also
 * brings its run: the queued events right behind it in its line, applied after it in the
 * same transaction, so that a burst about one slug goes at the speed of a transaction,
 * not of a job each. Changes go in rounds (every head, then every run's first follower,
 * ...): inside a round no two events share a line, so a round applies creates in one
 * INSERT, and line order holds across rounds.
 *
 * When a change fails, the transaction is rolled back. A follower that failed ends its
 * run: the run is applied up to it, and it becomes the head of its line, claimed by its
 * own job, so it fails (or is retried) exactly as it would alone. A head that failed is
 * applied alone, its own job records the failure, and the others go together again.
 */
export function createApplyBatcher(
  deps: Pick<WorkerDeps, 'db' | 'config' | 'schemas' | 'logger'>,
  waker: Waker,
): ApplyBatcher {
  const context = { ...deps, waker, categories: createCategoryResolver() };
  const group = createGroupCommit<ClaimedHead, Applied | undefined>({
    // Leave the rest of the pool to claims and failure records.
    maxInFlight: Math.max(1, Math.floor(deps.config.database.poolSize / 2)),
    maxBatch: MAX_HEADS_PER_TRANSACTION,
    write: (batch) => applyBatch(context, batch, new Map()),
  });
  return { apply: (head) => group.submit(head) };
}

type Context = Parameters<typeof createApplyBatcher>[0] & {
  waker: Waker;
  categories: CategoryResolver;
};

async function applyBatch(context: Context, batch: Waiting[], caps: RunCaps): Promise<void> {
  try {
    const applied = await applyTogether(
      context,
      batch.map((waiting) => waiting.item),
      caps,
    );
    context.waker.wake(
      [...applied.keys()].flatMap((id) => linesOf(rowOf(batch, id))),
      [...applied.values()].flatMap(({ followers }) => followers.map(({ row }) => jobOf(row))),
    );
    const answered = new Set<string>();
    for (const { item, resolve } of batch) {
      // A second run of the same event in the batch (a stalled job taken again while its
      // first run waited here) changed nothing.
      resolve(answered.has(item.row.id) ? undefined : applied.get(item.row.id));
      answered.add(item.row.id);
    }
  } catch (error) {
    const reason = error instanceof BatchFailed ? error.reason : error;
    if (databaseFailureOf(reason) === 'unreachable') {
      for (const waiting of batch) waiting.reject(reason);
      return;
    }
    if (error instanceof BatchFailed && error.heads.size === 0 && error.cuts.size > 0) {
      await applyBatch(context, batch, new Map([...caps, ...error.cuts]));
      return;
    }
    if (batch.length === 1) {
      batch[0]?.reject(reason);
      return;
    }
    const merged = new Map([...caps, ...(error instanceof BatchFailed ? error.cuts : [])]);
    // A head's own change failed: it alone, the rest together. Otherwise the shared
    // statements failed (a deadlock with another transaction, say): one by one.
    const failed = error instanceof BatchFailed && error.heads.size > 0 ? error.heads : undefined;
    const alone = failed ? batch.filter((waiting) => failed.has(waiting.item.row.id)) : batch;
    for (const waiting of alone) await applyBatch(context, [waiting], merged);
    if (failed) {
      const rest = batch.filter((waiting) => !failed.has(waiting.item.row.id));
      if (rest.length > 0) await applyBatch(context, rest, merged);
    }
  }
}

interface Plan {
  head: ClaimedHead;
  followers: Array<{ row: EventRow; routed: RoutedEvent; log: Logger }>;
}

async function applyTogether(
  context: Context,
  heads: ClaimedHead[],
  caps: RunCaps,
): Promise<Map<string, Applied>> {
  // A second run of an event in the batch (a stalled job taken again while its first run
  // waited here) is left out: the first is applied, as applyBatch answers the first.
  const unique = heads.filter(
    (head, index) => heads.findIndex((other) => other.row.id === head.row.id) === index,
  );
  const share = Math.floor((MAX_EVENTS_PER_TRANSACTION - unique.length) / unique.length);
  return context.db.prisma.$transaction(
    async (tx) => {
      const runs = await lockHeadsAndRuns(
        tx,
        unique.map(({ row }) => ({
          headId: row.id,
          maxFollowers: Math.min(share, caps.get(row.id) ?? share),
        })),
      );
      // Heads another run finished meanwhile are left out: nothing to change for them.
      const plans = unique.flatMap((head): Plan[] => {
        const run = runs.get(head.row.id);
        return run === undefined ? [] : [{ head, followers: routeRun(context, head, run) }];
      });
      const events = plans.flatMap(({ head, followers }) => [
        head.routed,
        ...followers.map(({ routed }) => routed),
      ]);
      const scope: ApplyScope = {
        tx,
        categories: await context.categories.resolve(tx, events.flatMap(categoriesNamedBy)),
      };
      const results = await applyInRounds(scope, plans);
      await recordApplied(tx, [
        ...plans.map(({ head }) => appliedEvent(head.row, head.attempt, results)),
        ...plans.flatMap(({ followers }) =>
          followers.map(({ row }) => appliedEvent(row, null, results)),
        ),
      ]);
      return new Map(
        plans.map(({ head, followers }) => [
          head.row.id,
          {
            result: resultOf(results, head.row.id),
            followers: followers.map(({ row, log }) => ({
              row,
              log,
              result: resultOf(results, row.id),
            })),
          },
        ]),
      );
    },
    { timeout: 60_000 },
  );
}

/**
 * The followers that can be applied: the run up to the first that no longer validates,
 * which stays queued and so becomes the next head, failing as it would alone.
 */
function routeRun(deps: Context, head: ClaimedHead, run: EventRow[]): Plan['followers'] {
  const followers: Plan['followers'] = [];
  for (const row of run) {
    const log = deps.logger.child({
      eventId: row.id,
      requestId: row.requestId,
      event: row.event,
      inRunOf: head.row.id,
    });
    try {
      followers.push({ row, log, routed: routeEvent(deps.schemas, row, deps.config.content, log) });
    } catch {
      break;
    }
  }
  return followers;
}

async function applyInRounds(scope: ApplyScope, plans: Plan[]): Promise<Map<string, EventResult>> {
  const results = new Map<string, EventResult>();
  const lines = plans.map(({ head, followers }) =>
    stepsOf([head.routed, ...followers.map(({ routed }) => routed)]),
  );
  const rounds = Math.max(0, ...lines.map((steps) => steps.length));
  for (let round = 0; round < rounds; round += 1) {
    const steps = lines.flatMap((line) => {
      const step = line[round];
      return step === undefined ? [] : [step];
    });
    try {
      for (const [id, result] of await applyRound(scope, steps)) results.set(id, result);
    } catch (error) {
      if (error instanceof ChangeFailed) throw failureOf(error, plans);
      throw error;
    }
  }
  return results;
}

/** Which heads failed, and where the runs whose followers failed must end. */
function failureOf(error: ChangeFailed, plans: Plan[]): BatchFailed {
  const failed = new Set(error.eventIds);
  const heads = new Set<string>();
  const cuts = new Map<string, number>();
  for (const { head, followers } of plans) {
    if (failed.has(head.row.id)) heads.add(head.row.id);
    const position = followers.findIndex(({ row }) => failed.has(row.id));
    if (position >= 0) cuts.set(head.row.id, position);
  }
  return new BatchFailed(heads, cuts, error.reason);
}

function resultOf(results: Map<string, EventResult>, eventId: string): EventResult {
  const result = results.get(eventId);
  if (result === undefined) throw new Error(`event ${eventId} was applied without a result`);
  return result;
}

const appliedEvent = (
  row: EventRow,
  attempt: number | null,
  results: Map<string, EventResult>,
): AppliedEvent => ({
  eventId: row.id,
  attempt,
  result: resultOf(results, row.id),
  notifyOnFinish: row.notifyOnFinish,
});

const rowOf = (batch: Waiting[], eventId: string): EventRow => {
  const waiting = batch.find(({ item }) => item.row.id === eventId);
  if (waiting === undefined) throw new Error(`event ${eventId} is not in the batch`);
  return waiting.item.row;
};

const jobOf = (row: EventRow) => ({ eventId: row.id, event: row.event, requestId: row.requestId });
