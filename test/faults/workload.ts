// What the bot will send in one scenario: per slug, a script of events (a few each over
// many slugs, or many over a few hot ones). Choices are drawn from a seeded generator so
// that a failing run can be replayed with --seed. The plan does not predict outcomes (the
// replay model does, in the order the API recorded); it only biases choices so that every
// path (success, SLUG_TAKEN, ARTICLE_NOT_FOUND, re-create after delete) occurs.

import { seededRandom } from '@ingest/test-harness';

export type ContentEvent =
  'article.create' | 'article.update' | 'article.delete' | 'highlight.create';
export type Duplicate = 'none' | 'after' | 'concurrent';

export interface PlannedEvent {
  /** Position in the scenario's plan; also part of the Idempotency-Key. */
  index: number;
  slug: string;
  event: ContentEvent;
  data: Record<string, unknown>;
  idempotencyKey: string;
  /** Which of the account's API keys sends it. */
  apiKeyIndex: number;
  /** Re-send the same request with the same key: after its 2xx, or at the same time. */
  duplicate: Duplicate;
  /** Deliberately invalid: the API must answer 400 and record it as `rejected`. */
  invalid: boolean;
}

export interface SlugScript {
  slug: string;
  events: PlannedEvent[];
}

/**
 * How a script picks its next event: a roll below `create` creates the article, below
 * `delete` deletes it, below `highlight` makes a highlight about it, else it updates it.
 * One set of bounds for when the generator expects the article to exist, one for not.
 */
export interface EventMix {
  exists: { create: number; delete: number; highlight: number };
  missing: { create: number; delete: number; highlight: number };
}

/** Short lives: created, changed a few times, often deleted, sometimes created again. */
export const SPREAD_MIX: EventMix = {
  exists: { create: 0.07, delete: 0.2, highlight: 0.32 },
  missing: { create: 0.8, delete: 0.88, highlight: 0.94 },
};

/** What a scenario's traffic looks like: its slugs, their scripts, and how they are sent. */
export interface WorkloadShape {
  slugs: number;
  /** Events per slug, drawn between the two. */
  minEvents: number;
  maxEvents: number;
  mix: EventMix;
  /** Events of one slug the bot has in flight at once; 1: each waits for the previous one's 2xx. */
  inFlightPerSlug: number;
  /** Events leave in groups of this many, the groups paced to the run's rate; 1: evenly. */
  burst: number;
  /** Events per call, sent as batches; unset: one call per event. */
  batch?: number;
}

export interface WorkloadOptions {
  tag: string;
  slugs: number;
  minEvents: number;
  maxEvents: number;
  mix: EventMix;
  duplicateRate: number;
  /** Share of events sent invalid on purpose. */
  invalidRate: number;
  apiKeys: number;
  seed: number;
}

const CATEGORIES = ['News', 'Sport', 'Tech', 'Culture'];
// Non-ASCII on purpose: content must come back exactly as sent.
const WORDS = ['alpha', 'beta', 'gamma', 'Größe', 'crème', 'naïve', '日本語', 'emoji🙂', 'delta'];

export function planWorkload(options: WorkloadOptions): SlugScript[] {
  const random = seededRandom(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const chance = (p: number) => random() < p;
  const words = (count: number) => Array.from({ length: count }, () => pick(WORDS)).join(' ');
  // Sometimes long enough (over 200 words) that a computed readMinutes is above 1.
  const body = () =>
    Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
      words(chance(0.2) ? 150 + Math.floor(random() * 200) : 3 + Math.floor(random() * 20)),
    );
  const maybeNull = <T>(value: () => T) => (chance(0.3) ? null : value());

  let index = 0;
  const scripts: SlugScript[] = [];
  for (let s = 0; s < options.slugs; s += 1) {
    const slug = `${options.tag}-s${s}`;
    const events: PlannedEvent[] = [];
    const length =
      options.minEvents + Math.floor(random() * (options.maxEvents - options.minEvents + 1));
    let exists = false; // what the generator expects; only used to bias the next choice
    for (let e = 0; e < length; e += 1) {
      const roll = random();
      const bounds = exists ? options.mix.exists : options.mix.missing;
      let event: ContentEvent;
      let data: Record<string, unknown>;
      const invalid = chance(options.invalidRate);
      if (invalid) {
        // A blank title: refused by validation, recorded as rejected, never applied.
        event = 'article.create';
        data = { slug, title: '', body: body() };
      } else if (roll < bounds.create) {
        event = 'article.create';
        data = { slug, title: `${words(3)} ${slug}#${e}`, body: body() };
        if (chance(0.6)) data.excerpt = words(6);
        if (chance(0.5)) data.cover = `https://img.example.com/${slug}/${e}.jpg`;
        if (chance(0.6)) data.category = pick(CATEGORIES);
        if (chance(0.5)) data.readMinutes = 1 + Math.floor(random() * 30);
        exists = true;
      } else if (roll < bounds.delete) {
        event = 'article.delete';
        data = { slug };
        exists = false;
      } else if (roll < bounds.highlight) {
        event = 'highlight.create';
        data = {
          title: `highlight ${slug}#${e}`,
          videoUrl: `https://video.example.com/${slug}/${e}`,
          articleSlug: slug,
          tags: [pick(WORDS)],
        };
      } else {
        event = 'article.update';
        data = { slug };
        // At least one change; each field independently, nullable ones sometimes cleared.
        do {
          if (chance(0.4)) data.title = `${words(2)} v${e}`;
          if (chance(0.3)) data.body = body();
          if (chance(0.3)) data.excerpt = maybeNull(() => words(4));
          if (chance(0.2))
            data.cover = maybeNull(() => `https://img.example.com/${slug}/u${e}.png`);
          if (chance(0.3)) data.category = maybeNull(() => pick(CATEGORIES).toUpperCase());
          if (chance(0.3)) data.readMinutes = maybeNull(() => 1 + Math.floor(random() * 60));
        } while (Object.keys(data).length === 1);
      }
      const duplicate: Duplicate = chance(options.duplicateRate)
        ? chance(0.5)
          ? 'after'
          : 'concurrent'
        : 'none';
      events.push({
        index,
        slug,
        event,
        data,
        idempotencyKey: `${options.tag}-e${index}`,
        apiKeyIndex: s % options.apiKeys,
        duplicate,
        invalid,
      });
      index += 1;
    }
    scripts.push({ slug, events });
  }
  return scripts;
}
