// The bot's traffic: many slugs at once, each slug's events strictly one after another
// (the next is sent only once the previous one got its 2xx), paced so that the load
// spans the fault instead of finishing before it.
import { setTimeout as sleep } from 'node:timers/promises';
import { deliver, newCounters, type BotCounters, type Delivery } from './bot-request.js';
import type { PlannedEvent, SlugScript } from './workload.js';

export interface SentEvent {
  planned: PlannedEvent;
  /** Every answer the event's requests got (two for a duplicated send). */
  deliveries: Delivery[];
  /** Every event id the API answered with for this Idempotency-Key: exactly one is right. */
  ids: Set<string>;
  accepted: boolean;
}

export interface LoadOptions {
  baseUrl: string;
  apiKeys: string[];
  scripts: SlugScript[];
  concurrency: number;
  eventsPerSecond: number;
  /** How long one request may be retried before the bot gives up on it. */
  retryBudgetMs: number;
  /**
   * No new event starts after this long: on a slow machine the scenario then sends fewer
   * events rather than running long. Events under way still finish, retries included.
   */
  maxLoadMs: number;
  /** ...unless fewer than this many are done: then up to a quarter longer. */
  minEvents: number;
}

export interface Load {
  done: Promise<{ sent: SentEvent[]; counters: BotCounters }>;
  /**
   * Resolves once this share of the planned events has been acknowledged, or this share
   * of the load's time has passed, whichever comes first: faults are injected on it.
   */
  whenProgress(fraction: number): Promise<void>;
  sentCount(): number;
}

export function startLoad(options: LoadOptions): Load {
  const counters = newCounters();
  const sent: SentEvent[] = [];
  const queues = options.scripts.map((script) => ({ events: [...script.events], busy: false }));
  const milestones: Array<{ count: number; resolve: () => void }> = [];
  const waiting = new Set<() => void>();
  const wakeAll = () => {
    for (const resolve of waiting) resolve();
    waiting.clear();
  };
  const started = Date.now();
  const total = options.scripts.reduce((sum, script) => sum + script.events.length, 0);
  let scheduled = 0;

  const settleMilestones = () => {
    for (const milestone of milestones.filter((m) => sent.length >= m.count)) {
      milestones.splice(milestones.indexOf(milestone), 1);
      milestone.resolve();
    }
  };

  async function sendOne(planned: PlannedEvent): Promise<SentEvent> {
    const request = {
      baseUrl: options.baseUrl,
      apiKey: options.apiKeys[planned.apiKeyIndex] ?? '',
      idempotencyKey: planned.idempotencyKey,
      event: planned.event,
      data: planned.data,
    };
    const once = () => deliver(request, counters, options.retryBudgetMs);
    let deliveries: Delivery[];
    if (planned.duplicate === 'concurrent') deliveries = await Promise.all([once(), once()]);
    else if (planned.duplicate === 'after') {
      const first = await once();
      deliveries = first.outcome === 'accepted' ? [first, await once()] : [first];
    } else deliveries = [await once()];
    const ids = new Set(deliveries.flatMap((d) => (d.id === undefined ? [] : [d.id])));
    return { planned, deliveries, ids, accepted: deliveries.some((d) => d.outcome === 'accepted') };
  }

  async function lane(): Promise<void> {
    for (;;) {
      const elapsed = Date.now() - started;
      if (elapsed > options.maxLoadMs * 1.25) return;
      if (elapsed > options.maxLoadMs && sent.length >= options.minEvents) return;
      const ready = queues.filter((q) => !q.busy && q.events.length > 0);
      if (ready.length === 0) {
        if (queues.every((q) => q.events.length === 0)) return;
        await new Promise<void>((resolve) => waiting.add(resolve));
        continue;
      }
      const queue = ready[Math.floor(Math.random() * ready.length)];
      const planned = queue?.events.shift();
      if (queue === undefined || planned === undefined) continue;
      queue.busy = true;
      // Pacing: event n leaves no earlier than n / rate seconds after the start.
      const due = started + (scheduled * 1_000) / options.eventsPerSecond;
      scheduled += 1;
      try {
        await sleep(Math.max(0, due - Date.now()));
        const result = await sendOne(planned);
        sent.push(result);
        // Per-slug order: a slug whose event was not accepted stops there, since what the
        // API did with it is unknown and the next event must not overtake it.
        if (!result.accepted && !planned.invalid) queue.events.length = 0;
      } finally {
        queue.busy = false;
        settleMilestones();
        wakeAll();
      }
    }
  }

  const done = (async () => {
    // A lane with no slug ready waits until another lane finishes an event.
    const lanes = Array.from({ length: options.concurrency }, () => lane());
    try {
      await Promise.all(lanes);
    } finally {
      for (const milestone of milestones.splice(0)) milestone.resolve();
    }
    return { sent, counters };
  })();

  return {
    done,
    sentCount: () => sent.length,
    whenProgress(fraction) {
      const count = Math.floor(total * fraction);
      if (sent.length >= count) return Promise.resolve();
      const byCount = new Promise<void>((resolve) => milestones.push({ count, resolve }));
      const byTime = sleep(Math.max(0, started + fraction * options.maxLoadMs - Date.now()));
      return Promise.race([byCount, byTime]);
    },
  };
}
