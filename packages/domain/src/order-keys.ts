import type { EventData, EventName } from '@ingest/contracts';
import { slugFromTitle } from './slugs.js';

/**
 * The slugs an event is about. Events sharing a slug are applied in the order the API
 * accepted them; events with no slug in common run in parallel. A create without a slug
 * is ordered by the slug its title derives to, so that updates of that slug sent after
 * it wait for it.
 */
export function orderKeysOf<Name extends EventName>(event: Name, data: EventData<Name>): string[] {
  switch (event) {
    case 'article.create': {
      const create = data as EventData<'article.create'>;
      return [create.slug ?? slugFromTitle(create.title)];
    }
    case 'article.update': {
      const update = data as EventData<'article.update'>;
      return update.newSlug === undefined || update.newSlug === update.slug
        ? [update.slug]
        : [update.slug, update.newSlug];
    }
    case 'article.delete':
      return [(data as EventData<'article.delete'>).slug];
    case 'highlight.create': {
      const slug = (data as EventData<'highlight.create'>).articleSlug;
      return slug === undefined ? [] : [slug];
    }
  }
}
