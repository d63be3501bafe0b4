import type { ContentLimits, EventData, EventName, EventResult, Result } from '@ingest/contracts';
import type { Logger } from '@ingest/logger';
import type { CategoryIds } from './categories.js';
import type { ContentChange } from './content-changes.js';
import type { Tx } from './tx.js';

/**
 * What a processor works in: the transaction, the categories resolved for it, and the
 * outbox, where it reports each change it applied (and no other), for outgoing webhooks.
 */
export interface ApplyScope {
  tx: Tx;
  categories: CategoryIds;
  outbox: ContentChange[];
}

/** One event's change, validated and routed: everything its processor needs but the transaction. */
export interface Change<Name extends EventName> {
  eventId: string;
  accountId: string;
  data: EventData<Name>;
  limits: ContentLimits;
  log: Logger;
}

/**
 * What applies one kind of event inside the caller's transaction, which also records the
 * event's outcome. A failure the event itself causes (not found, slug taken) is an
 * AppError: it fails the event at once. Anything else is taken as transient and retried.
 *
 * A failure answered in Outcomes must have changed nothing and left the transaction
 * usable: it is recorded in the same commit as the others' changes, at the cost of a
 * success. A failure that was thrown rolls the transaction back, and the batch is tried
 * again without its event (apply-plan.ts, settleBatch).
 */
export interface EventProcessor<Name extends EventName> {
  apply(scope: ApplyScope, change: Change<Name>): Promise<EventResult>;
  /**
   * Applies several events of this kind, about different slugs, in fewer statements.
   * Answers every event by id: what changed, or its own AppError (having changed
   * nothing). Throws only when the statements failed as a whole.
   */
  applyMany?(scope: ApplyScope, changes: Array<Change<Name>>): Promise<Outcomes>;
  /**
   * Applies consecutive events of one line (one account's slug), in line order, each
   * seeing the ones before it, in fewer statements than one by one. Answers events by id,
   * in order; one left unanswered ends the run there (it is applied later, as a head).
   */
  applyRun?(scope: ApplyScope, changes: Array<Change<Name>>): Promise<Outcomes>;
}

/**
 * Each event's outcome in a batch, by event id: one event's AppError must not fail the
 * others', so the caller handles both.
 */
export type Outcomes = Map<string, Result<EventResult>>;

/** What changed for `eventId`; throws its AppError, or an Error when it was not answered. */
export function changeOf(outcomes: Outcomes, eventId: string): EventResult {
  const outcome = outcomes.get(eventId);
  if (outcome === undefined) throw new Error(`event ${eventId} was not answered`);
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

/** The one place an event name is routed to the code that applies it. */
export type ProcessorCatalog = { [Name in EventName]: EventProcessor<Name> };

/**
 * An event routed by name. Built only by routeEvent, which parses the payload with the
 * schema of that name, so `event` and `change.data` agree; code that takes one is generic
 * in the name, which keeps the two together without a cast.
 */
export interface RoutedEvent<Name extends EventName = EventName> {
  event: Name;
  change: Change<Name>;
}

type ApplyMany<Name extends EventName> = NonNullable<EventProcessor<Name>['applyMany']>;

/** `apply` of a processor whose `applyMany` does the work: one event is a batch of one. */
export function oneByMany<Name extends EventName>(
  applyMany: ApplyMany<Name>,
): EventProcessor<Name>['apply'] {
  return async (scope, change) => changeOf(await applyMany(scope, [change]), change.eventId);
}
