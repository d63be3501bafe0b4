// The stream of requests a load run sends: round robin over every key, each request a
// fresh event. `creates` is article.create only; `mixed` is mostly creates with updates
// and deletes of articles created earlier by the same account; `titled` is `mixed` with
// one create in four naming no slug, so that its slug is derived from a title that other
// articles share (`Stored headline 1` to `Stored headline 1000`: see stored-articles.ts).
// `published` is creates as the specification's publishers send them, with no slug (each
// derived from its own title); `one-title` is those all titled alike, as a bot's daily digest.
import { articleCreate } from './article-payloads.js';

export interface BenchKey {
  key: string;
  accountId: string;
}

export interface OutgoingRequest {
  apiKey: string;
  body: string;
}

/** What a load run sends: one fresh request each time `next` is called. */
export interface RequestStream {
  next(): OutgoingRequest;
}

export type EventMix = 'creates' | 'published' | 'one-title' | 'mixed' | 'titled';

/** The titles of `titled` creates without a slug: this many, in turn. */
export const SHARED_TITLES = 1_000;

/**
 * An update or delete only names a slug no request has touched (created, updated) for at
 * least this many requests: requests in flight together have no defined order (README,
 * "Order"), and the bench wants events that succeed, not ARTICLE_NOT_FOUND. (Checking
 * only the create once let an update and a delete of one slug be sent a few requests
 * apart; the delete was recorded first now and then, and the update failed.)
 */
const MATURITY = 2_000;

export function createEventStream(keys: BenchKey[], runTag: string, mix: EventMix) {
  if (keys.length === 0) throw new Error('no API keys');
  let n = 0;
  const created: Array<{ slug: string; keyIndex: number }> = [];
  const deleted = new Set<string>();
  /** The request that last named each slug. */
  const touched = new Map<string, number>();
  const counts = { create: 0, update: 0, delete: 0 };

  const earlierSlug = () => {
    const mature = created.length - MATURITY;
    for (let tries = 0; mature > 0 && tries < 8; tries += 1) {
      const pick = created[Math.floor(Math.random() * mature)];
      if (pick === undefined || deleted.has(pick.slug)) continue;
      if (n - (touched.get(pick.slug) ?? 0) >= MATURITY) return pick;
    }
    return undefined;
  };

  const next = (): OutgoingRequest => {
    n += 1;
    const keyIndex = n % keys.length;
    const roll = mix === 'mixed' || mix === 'titled' ? n % 20 : 0;
    // 3 in 20 are updates, 1 in 20 deletes, once enough articles exist.
    const target = roll >= 16 ? earlierSlug() : undefined;
    if (target !== undefined) touched.set(target.slug, n);
    if (target !== undefined && roll <= 18) {
      counts.update += 1;
      return send(target.keyIndex, {
        event: 'article.update',
        data: { slug: target.slug, title: `Updated headline ${n}`, category: 'Updated' },
      });
    }
    if (target !== undefined) {
      counts.delete += 1;
      deleted.add(target.slug);
      return send(target.keyIndex, { event: 'article.delete', data: { slug: target.slug } });
    }
    counts.create += 1;
    const data = articleCreate(runTag, n);
    const title =
      mix === 'published'
        ? data.title
        : mix === 'one-title'
          ? `Daily digest ${runTag}`
          : mix === 'titled' && n % 4 === 0
            ? `Stored headline ${(n % SHARED_TITLES) + 1}`
            : undefined;
    if (title !== undefined) {
      const { slug: _, ...withoutSlug } = data;
      return send(keyIndex, { event: 'article.create', data: { ...withoutSlug, title } });
    }
    created.push({ slug: data.slug, keyIndex });
    touched.set(data.slug, n);
    return send(keyIndex, { event: 'article.create', data });
  };

  const send = (keyIndex: number, event: unknown): OutgoingRequest => ({
    apiKey: keys[keyIndex % keys.length]?.key ?? '',
    body: JSON.stringify(event),
  });

  return { next, counts };
}

export type EventStream = ReturnType<typeof createEventStream>;
