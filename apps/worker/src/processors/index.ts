import type { EventName, EventResult } from '@ingest/contracts';
import { createArticle, createArticlesWithSlugs } from './article-create.js';
import { deleteArticle } from './article-delete.js';
import { updateArticle } from './article-update.js';
import { createHighlight } from './highlight-create.js';
import type { Processor, ProcessorContext, Tx } from './processor.js';

/** The one place an event name is routed to the code that applies it. */
export const PROCESSORS: { [Name in EventName]: Processor<Name> } = {
  'article.create': createArticle,
  'article.update': updateArticle,
  'article.delete': deleteArticle,
  'highlight.create': createHighlight,
};

/** An event and what its processor needs, but the transaction. */
export type RoutedEvent = {
  [Name in EventName]: { event: Name; context: Omit<ProcessorContext<Name>, 'tx'> };
}[EventName];

/** One of several changes applied in one transaction failed; the transaction is unusable. */
export class ChangeFailed extends Error {
  constructor(
    /** The position of the failed event in the list handed in. */
    readonly index: number,
    readonly reason: unknown,
  ) {
    super('one change of a shared transaction failed');
  }
}

const applyOne = ({ event, context }: RoutedEvent, tx: Tx) =>
  (PROCESSORS[event] as Processor<typeof event>)({ ...context, tx });

/**
 * Applies events in one transaction with as few statements as their kinds allow:
 * article.create events that name their slug (most of them) share one INSERT, the rest
 * are applied one after another. Events applied together are about different slugs (see
 * the claim), so the order among them does not matter. Throws ChangeFailed for the first
 * change that fails.
 */
export async function applyChanges(tx: Tx, events: RoutedEvent[]): Promise<EventResult[]> {
  const results: EventResult[] = new Array<EventResult>(events.length);
  const named = events.flatMap((routed, index) =>
    routed.event === 'article.create' && routed.context.data.slug !== undefined
      ? [{ index, context: routed.context }]
      : [],
  );
  if (named.length > 0) {
    const outcomes = await createArticlesWithSlugs(
      tx,
      named.map((entry) => entry.context),
    );
    for (const [position, { index }] of named.entries()) {
      const outcome = outcomes[position] as EventResult | Error;
      if (outcome instanceof Error) throw new ChangeFailed(index, outcome);
      results[index] = outcome;
    }
  }
  for (const [index, routed] of events.entries()) {
    if (results[index] !== undefined) continue;
    try {
      results[index] = await applyOne(routed, tx);
    } catch (error) {
      throw new ChangeFailed(index, error);
    }
  }
  return results;
}
