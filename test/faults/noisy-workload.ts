// The noisy account's flood: a backlog of new articles, each of its own slug, some of them
// then updated and a few deleted (the load generator sends a slug's next event after the
// previous one's 2xx, so the replay knows what each must do). Small bodies: the flood is
// about numbers; the quiet bot's traffic is what exercises content.
import { seededRandom } from '@ingest/test-harness';
import type { PlannedEvent, SlugScript } from './workload.js';

export interface FloodOptions {
  /** Starts every slug and Idempotency-Key: unique to the scenario. */
  tag: string;
  /** Events to plan, about 85% of them creates. */
  events: number;
  apiKeys: number;
  seed: number;
}

const UPDATE_RATE = 0.12;
/** Of the updated slugs, the share deleted afterwards. */
const DELETE_RATE = 0.4;

export function planFlood(options: FloodOptions): SlugScript[] {
  const random = seededRandom(options.seed);
  const scripts: SlugScript[] = [];
  let index = 0;
  const event = (
    slug: string,
    name: PlannedEvent['event'],
    data: Record<string, unknown>,
  ): PlannedEvent => {
    const planned: PlannedEvent = {
      index,
      slug,
      event: name,
      data,
      idempotencyKey: `${options.tag}-e${index}`,
      apiKeyIndex: index % options.apiKeys,
      duplicate: 'none',
      invalid: false,
    };
    index += 1;
    return planned;
  };
  for (let s = 0; index < options.events; s += 1) {
    const slug = `${options.tag}-s${s}`;
    const events = [
      event(slug, 'article.create', {
        slug,
        title: `bulk import ${slug}`,
        body: [`paragraph ${s}`],
      }),
    ];
    // Not past the planned count: the last slug's follow-ups are left out.
    if (random() < UPDATE_RATE && index < options.events) {
      events.push(event(slug, 'article.update', { slug, title: `bulk import ${slug} (fixed)` }));
      if (random() < DELETE_RATE && index < options.events) {
        events.push(event(slug, 'article.delete', { slug }));
      }
    }
    scripts.push({ slug, events });
  }
  return scripts;
}
