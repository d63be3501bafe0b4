import { failed, MINUTE_MS } from '@ingest/contracts';
import { createGroupCommit } from '@ingest/db';
import {
  lockHeadsAndRuns,
  recordApplied,
  type AppliedEvent,
  type EventRow,
} from '@ingest/event-log';
import { lanes } from '@ingest/fairness';
import { inSpan } from '@ingest/observability';
import { deliveryPolicyOf, enqueueDeliveries, type NewDelivery } from '@ingest/queue';
import type { Context } from '@opentelemetry/api';
import {
  categoriesNamedBy,
  createCategoryResolver,
  type ApplyScope,
  type CategoryResolver,
  type Outcome,
  type Outcomes,
} from '@ingest/events';
import {
  roundsOf,
  routeRun,
  runRequestsOf,
  settleBatch,
  stepsOf,
  toWake,
  uniqueHeads,
  type RoutedFollower,
  type RunCaps,
} from './apply-plan.js';
import { applyRound } from './apply-round.js';
import { recordMessages, type RecordedDelivery } from './record-messages.js';
import type { WorkerDeps } from '../deps.js';
import { eventErrorOf } from './failures.js';
import type { Waker } from './order-wake.js';
import type { RoutedEvent } from './route-event.js';

/**
 * An event first in its lines, routed: claimed by this run (its attempt open), or on its
 * job's first delivery only read, its attempt then recorded whole when it is applied.
 */
export interface ClaimedHead {
  row: EventRow;
  /** The attempt its claim opened; null when read, not claimed. */
  attempt: number | null;
  routed: RoutedEvent;
  /** The trace context it was applied in: its deliveries' and its run's spans go there. */
  trace: Context;
}

/** An event applied right behind its head, in the same transaction. */
export interface Follower {
  row: EventRow;
  outcome: Outcome;
}

export interface Applied {
  outcome: Outcome;
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
/** Accounts with this many heads waiting, or fewer, may go in the spare transaction. */
const EXPRESS_HEADS = 4;
/**
 * How long one transaction may take in all: Prisma's 5 s default is too short for up to
 * MAX_EVENTS_PER_TRANSACTION events waiting on row locks (a head's, a new category's) under
 * load. Each statement stays bounded by the database's statement timeout.
 */
const TRANSACTION_TIMEOUT_MS = MINUTE_MS;

/**
 * Group commit for the worker, along lines and across them. Heads claimed together are
 * about different lines and share one transaction: one lock statement, the changes, one
 * statement recording every outcome, one commit. A head with a single order key also
 * brings its run (the queued events right behind it in its line), so that a burst about
 * one slug goes at the speed of a transaction, not of a job each. Changes go in rounds
 * (roundsOf): a round applies creates in one INSERT, and line order holds.
 *
 * A change that fails for a reason of its own (not found, slug taken) changes nothing and
 * is recorded as failed in the same commit: a failure costs what a success does. Only a
 * change that throws rolls the transaction back; settleBatch then tries again in parts, so
 * that the event that threw fails (or is retried) exactly as it would alone.
 *
 * Each applied change that an endpoint subscribes to leaves a message and its deliveries
 * in the same transaction (the outbox of outgoing webhooks), queued once it has committed.
 */
export function createApplyBatcher(
  deps: Pick<WorkerDeps, 'db' | 'config' | 'logger' | 'categoryCache' | 'deliveryQueue'>,
  waker: Waker,
): ApplyBatcher {
  const context = { ...deps, waker, categories: createCategoryResolver(deps.categoryCache) };
  const group = createGroupCommit<ClaimedHead, Applied | undefined>({
    // Leave the rest of the pool to claims and failure records (and the spare transaction).
    maxInFlight: Math.max(1, Math.floor(deps.config.database.poolSize / 2)),
    maxBatch: MAX_HEADS_PER_TRANSACTION,
    spanName: 'event_log.apply_transaction',
    // Transactions in turns by account: a quiet account never waits behind a busy one's backlog.
    waiting: lanes(({ item }) => item.row.accountId),
    expressItems: EXPRESS_HEADS,
    write: (batch) => settleBatch(batch, (heads, caps) => applyAndWake(context, heads, caps)),
  });
  return { apply: (head) => group.submit(head) };
}

type Batcher = Parameters<typeof createApplyBatcher>[0] & {
  waker: Waker;
  categories: CategoryResolver;
};

/**
 * Applies the heads together; once committed, wakes what their lines let through and
 * queues the deliveries their changes recorded.
 */
async function applyAndWake(
  context: Batcher,
  heads: ClaimedHead[],
  caps: RunCaps,
): Promise<Map<string, Applied>> {
  const { applied, deliveries } = await applyTogether(context, heads, caps);
  const { lines, appliedInRuns } = toWake(heads, applied);
  context.waker.wake(lines, appliedInRuns);
  await queueDeliveries(context, tracedDeliveries(heads, applied, deliveries));
  return applied;
}

/**
 * Each delivery in the trace of the head whose transaction recorded it: its own event's
 * for a head, the head's for an event applied in a run (whose own job finds it finished).
 */
function tracedDeliveries(
  heads: ClaimedHead[],
  applied: Map<string, Applied>,
  deliveries: RecordedDelivery[],
): NewDelivery[] {
  if (deliveries.length === 0) return [];
  const traces = new Map<string, Context>();
  for (const head of heads) {
    traces.set(head.row.id, head.trace);
    for (const { row } of applied.get(head.row.id)?.followers ?? []) traces.set(row.id, head.trace);
  }
  return deliveries.map(({ deliveryId, eventId }) => ({ deliveryId, trace: traces.get(eventId) }));
}

/**
 * The changes are committed whatever Redis says: deliveries it did not take stay pending
 * in PostgreSQL, where the delivery reconciler finds them.
 */
async function queueDeliveries(context: Batcher, deliveries: NewDelivery[]): Promise<void> {
  try {
    await enqueueDeliveries(context.deliveryQueue, deliveries, deliveryPolicyOf(context.config));
  } catch (error) {
    context.logger.warn(
      { err: error, deliveries: deliveries.length },
      'could not queue webhook deliveries; the reconciler will',
    );
  }
}

interface Plan {
  head: ClaimedHead;
  followers: RoutedFollower[];
}

async function applyTogether(
  context: Batcher,
  heads: ClaimedHead[],
  caps: RunCaps,
): Promise<{ applied: Map<string, Applied>; deliveries: RecordedDelivery[] }> {
  const unique = uniqueHeads(heads);
  return context.db.prisma.$transaction(
    async (tx) => {
      const runs = await lockHeadsAndRuns(tx, runRequestsOf(unique, caps));
      // Heads another run finished meanwhile are left out: nothing to change for them.
      const plans = unique.flatMap((head): Plan[] => {
        const run = runs.get(head.row.id);
        return run === undefined ? [] : [{ head, followers: routeRun(context, run) }];
      });
      const events = plans.flatMap(({ head, followers }) => [
        head.routed,
        ...followers.map(({ routed }) => routed),
      ]);
      const scope: ApplyScope = {
        tx,
        categories: await context.categories.resolve(
          tx,
          events.flatMap(({ change }) => categoriesNamedBy(change.data)),
        ),
        outbox: [],
      };
      const results = await applyInRounds(scope, plans);
      const lines = new Map(
        plans.flatMap(({ head, followers }) =>
          [head.row, ...followers.map(({ row }) => row)].map((row) => [row.id, row.orderKeys]),
        ),
      );
      const deliveries = await recordMessages(
        tx,
        scope.outbox,
        (eventId) => lines.get(eventId) ?? [],
        context.config.webhooks.retryScheduleMs[0] ?? 0,
      );
      const outcomes = [
        ...plans.map(({ head }) => appliedEvent(head.row, head.attempt, results)),
        ...plans.flatMap(({ followers }) =>
          followers.map(({ row }) => appliedEvent(row, null, results)),
        ),
      ];
      await inSpan('event_log.record_outcomes', { 'ingest.events': outcomes.length }, () =>
        recordApplied(tx, outcomes),
      );
      const applied = new Map(
        plans.map(({ head, followers }) => [
          head.row.id,
          {
            outcome: outcomeOf(results, head.row.id),
            followers: followers.map(({ row }) => ({
              row,
              outcome: outcomeOf(results, row.id),
            })),
          },
        ]),
      );
      return { applied, deliveries };
    },
    { timeout: TRANSACTION_TIMEOUT_MS },
  );
}

async function applyInRounds(scope: ApplyScope, plans: Plan[]): Promise<Outcomes> {
  const results: Outcomes = new Map();
  const lines = plans.map(({ head, followers }) =>
    stepsOf(head.row.id, [head.routed, ...followers.map(({ routed }) => routed)]),
  );
  for (const steps of roundsOf(lines)) {
    for (const [id, result] of await applyRound(scope, steps)) results.set(id, result);
  }
  return results;
}

function outcomeOf(results: Outcomes, eventId: string): Outcome {
  const outcome = results.get(eventId);
  if (outcome === undefined) throw new Error(`event ${eventId} was applied without an outcome`);
  return outcome;
}

function appliedEvent(row: EventRow, attempt: number | null, results: Outcomes): AppliedEvent {
  const outcome = outcomeOf(results, row.id);
  return {
    eventId: row.id,
    attempt,
    outcome: outcome.ok ? outcome : failed(eventErrorOf(outcome.error, attempt ?? 1, true)),
    notifyOnFinish: row.notifyOnFinish,
  };
}
