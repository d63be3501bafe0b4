import {
  EVENT_NAMES,
  succeeded,
  type EventName,
  type EventResult,
  type Result,
} from '@ingest/contracts';
import { articleCreate } from './article-create.js';
import { articleDelete } from './article-delete.js';
import { articleUpdate } from './article-update.js';
import {
  type ApplyScope,
  type Change,
  type Outcomes,
  type ProcessorCatalog,
  type RoutedEvent,
} from './catalog.js';
import { highlightCreate } from './highlight-create.js';

export type { ApplyScope, Change, Outcomes, RoutedEvent } from './catalog.js';
export type { Tx } from './tx.js';
export {
  accountOfChange,
  type ArticleState,
  type ContentChange,
  type HighlightState,
} from './content-changes.js';
export { createCategoryResolver, type CategoryResolver } from './categories.js';
export { createCategoryCache, type CategoryCache } from './category-cache.js';
export { routeEvent } from './route.js';

export const PROCESSORS: ProcessorCatalog = {
  'article.create': articleCreate,
  'article.update': articleUpdate,
  'article.delete': articleDelete,
  'highlight.create': highlightCreate,
};

/** Changes applied in one transaction failed; the transaction is unusable. */
export class ChangeFailed extends Error {
  constructor(
    /** The events whose change failed: one, or every event of a statement shared by several. */
    readonly eventIds: string[],
    readonly reason: unknown,
  ) {
    super('a change of a shared transaction failed');
  }
}

/**
 * Events of one line applied together, in line order: one event, or consecutive events of
 * a kind whose processor has `applyRun` (a busy slug's updates).
 */
export type Step = RoutedEvent[];

/** A line's events, in line order, as steps. */
export function stepsOf(events: RoutedEvent[]): Step[] {
  const steps: Step[] = [];
  for (const routed of events) {
    const step = steps.at(-1);
    if (step?.at(-1)?.event === routed.event && PROCESSORS[routed.event].applyRun) {
      step.push(routed);
    } else steps.push([routed]);
  }
  return steps;
}

type Grouped = { [Name in EventName]: Array<Change<Name>> };

function addTo<Name extends EventName>(groups: Grouped, routed: RoutedEvent<Name>): void {
  groups[routed.event].push(routed.change);
}

/** A round's steps sorted for applyRound: single events by kind, longer steps as runs. */
export function groupRound(steps: Step[]): { singles: Grouped; runs: Step[] } {
  const singles: Grouped = {
    'article.create': [],
    'article.update': [],
    'article.delete': [],
    'highlight.create': [],
  };
  const runs: Step[] = [];
  for (const step of steps) {
    const [first] = step;
    if (first === undefined) continue;
    if (step.length === 1) addTo(singles, first);
    else runs.push(step);
  }
  return { singles, runs };
}

/**
 * Applies one step of each of several lines (so their order among them does not matter)
 * in as few statements as their kinds allow: single events of a kind with `applyMany` in
 * one call, other single events one by one, each longer step in one `applyRun`. Results
 * are keyed by event id. Throws ChangeFailed naming the event (or the events of a shared
 * call) whose change failed.
 */
export async function applyRound(scope: ApplyScope, steps: Step[]): Promise<Outcomes> {
  const { singles, runs } = groupRound(steps);
  const results: Outcomes = new Map();
  for (const run of runs) {
    const [first] = run;
    if (first === undefined) continue;
    await applyRun(
      scope,
      first.event,
      run.map(({ change }) => change),
      results,
    );
  }
  for (const name of EVENT_NAMES) await applyGroup(scope, name, singles[name], results);
  return results;
}

async function applyRun<Name extends EventName>(
  scope: ApplyScope,
  name: Name,
  changes: Array<Change<Name>>,
  results: Outcomes,
): Promise<void> {
  const processor = PROCESSORS[name];
  const applyRun = processor.applyRun?.bind(processor);
  if (applyRun === undefined) throw new Error(`${name} has no applyRun`);
  await keepBatchOutcomes(changes, () => applyRun(scope, changes), results);
}

async function applyGroup<Name extends EventName>(
  scope: ApplyScope,
  name: Name,
  changes: Array<Change<Name>>,
  results: Outcomes,
): Promise<void> {
  if (changes.length === 0) return;
  const processor = PROCESSORS[name];
  const applyMany = processor.applyMany?.bind(processor);
  // Even one change goes through applyMany where there is one: it answers failures
  // without throwing, so they do not cost a rollback.
  if (applyMany !== undefined) {
    await keepBatchOutcomes(changes, () => applyMany(scope, changes), results);
    return;
  }
  for (const change of changes) {
    try {
      results.set(change.eventId, succeeded(await processor.apply(scope, change)));
    } catch (error) {
      throw new ChangeFailed([change.eventId], error);
    }
  }
}

/**
 * Applies a batch of changes in one call: a throw fails every change of it, named, and
 * otherwise each change's outcome is kept as keepOutcomes says.
 */
async function keepBatchOutcomes(
  changes: Array<{ eventId: string }>,
  apply: () => Promise<Outcomes>,
  results: Outcomes,
): Promise<void> {
  let outcomes: Outcomes;
  try {
    outcomes = await apply();
  } catch (error) {
    throw new ChangeFailed(
      changes.map((change) => change.eventId),
      error,
    );
  }
  keepOutcomes(changes, outcomes, results);
}

/**
 * Each change's outcome into `results`, in order, failures included (they changed
 * nothing); ChangeFailed at the first that was not answered.
 */
export function keepOutcomes(
  changes: Array<{ eventId: string }>,
  outcomes: Outcomes,
  results: Outcomes,
): void {
  for (const { eventId } of changes) {
    const outcome: Result<EventResult> | undefined = outcomes.get(eventId);
    if (outcome === undefined) {
      throw new ChangeFailed([eventId], new Error(`event ${eventId} was not answered`));
    }
    results.set(eventId, outcome);
  }
}

/** The categories a change names (creates and updates may), to resolve them all at once. */
export const categoriesNamedBy = ({ change: { data } }: RoutedEvent): string[] =>
  'category' in data && typeof data.category === 'string' ? [data.category] : [];
