// The bot's traffic: many slugs at once, each slug's events in its script's order, paced
// so that the load spans the fault instead of finishing before it. By default a slug's
// next event is sent only once the previous one got its 2xx; with `inFlightPerSlug` above
// 1 the bot sends the next ones without waiting, and the API's acceptance order (the
// `sequence` it records) then decides which came first, not the script.
import { setTimeout as sleep } from 'node:timers/promises';
import { deliverBatch } from './bot-batch.js';
import { deliver, newCounters, type BotCounters, type Delivery } from './bot-request.js';
import type { PlannedEvent, SlugScript } from './workload.js';

export interface SentEvent {
  planned: PlannedEvent;
  /** Every answer the event's requests got (two for a duplicated send). */
  deliveries: Delivery[];
  /** Every event id the API answered with for this Idempotency-Key: exactly one is right. */
  ids: Set<string>;
  accepted: boolean;
  /** When its first request left and its last answer came (Date.now()). */
  sentAt: number;
  answeredAt: number;
}

export interface LoadOptions {
  /** The API processes; each event starts at the next one in turn. */
  baseUrls: string[];
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
  /** Events of one slug in flight at once; 1: each waits for the previous one's 2xx. */
  inFlightPerSlug: number;
  /**
   * Events leave in groups of this many, the groups paced to eventsPerSecond; 1: evenly.
   * Paced evenly, a slug's next event would rarely leave before the previous one's answer,
   * and several in flight per slug would seldom happen.
   */
  burst: number;
  /**
   * Events per call: above 1, each lane sends its events as batches of up to this many
   * (POST /api/webhooks/content/batch), from the slugs ready at that moment, all under one
   * API key; a slug's events in one batch keep their script's order.
   */
  batch?: number;
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
  const queues = options.scripts.map((script) => ({ events: [...script.events], inFlight: 0 }));
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
    const first = planned.index % options.baseUrls.length;
    const request = {
      baseUrls: [...options.baseUrls.slice(first), ...options.baseUrls.slice(0, first)],
      apiKey: options.apiKeys[planned.apiKeyIndex] ?? '',
      idempotencyKey: planned.idempotencyKey,
      event: planned.event,
      data: planned.data,
    };
    const once = () => deliver(request, counters, options.retryBudgetMs);
    const sentAt = Date.now();
    let deliveries: Delivery[];
    if (planned.duplicate === 'concurrent') deliveries = await Promise.all([once(), once()]);
    else if (planned.duplicate === 'after') {
      const first = await once();
      deliveries = first.outcome === 'accepted' ? [first, await once()] : [first];
    } else deliveries = [await once()];
    const ids = new Set(deliveries.flatMap((d) => (d.id === undefined ? [] : [d.id])));
    return {
      planned,
      deliveries,
      ids,
      accepted: deliveries.some((d) => d.outcome === 'accepted'),
      sentAt,
      answeredAt: Date.now(),
    };
  }

  /**
   * A batch's events, sent as a bot retries a batch; its events planned as duplicates make
   * the whole batch go twice: after its answer, or at the same time.
   */
  async function sendBatch(planned: PlannedEvent[]): Promise<SentEvent[]> {
    const [head] = planned;
    if (head === undefined) return [];
    const first = head.index % options.baseUrls.length;
    const request = {
      baseUrls: [...options.baseUrls.slice(first), ...options.baseUrls.slice(0, first)],
      apiKey: options.apiKeys[head.apiKeyIndex] ?? '',
      items: planned.map(({ idempotencyKey, event, data }) => ({ idempotencyKey, event, data })),
    };
    const once = () => deliverBatch(request, counters, options.retryBudgetMs);
    const sentAt = Date.now();
    const twice = (kind: string) => planned.some((event) => event.duplicate === kind);
    let rounds: Delivery[][];
    // `after` first: its re-send must be the second answer, which a concurrent one may not be.
    if (twice('after')) {
      const firstRound = await once();
      rounds = [firstRound, await once()];
    } else if (twice('concurrent')) rounds = await Promise.all([once(), once()]);
    else rounds = [await once()];
    return planned.map((event, i) => {
      const deliveries = rounds.flatMap((round) => (round[i] === undefined ? [] : [round[i]]));
      const ids = new Set(deliveries.flatMap((d) => (d.id === undefined ? [] : [d.id])));
      return {
        planned: event,
        deliveries,
        ids,
        accepted: deliveries.some((d) => d.outcome === 'accepted'),
        sentAt,
        answeredAt: Date.now(),
      };
    });
  }

  /** The events a lane sends next: one, or a batch's worth from the slugs ready now. */
  function takeReady(): Array<{ queue: (typeof queues)[number]; planned: PlannedEvent }> {
    const ready = queues.filter((q) => q.inFlight < options.inFlightPerSlug && q.events.length > 0);
    const taken: Array<{ queue: (typeof queues)[number]; planned: PlannedEvent }> = [];
    const size = options.batch ?? 1;
    let apiKeyIndex: number | undefined;
    for (let i = ready.length - 1; i > 0; i -= 1) {
      const j = Math.floor(Math.random() * (i + 1));
      [ready[i], ready[j]] = [
        ready[j] as (typeof ready)[number],
        ready[i] as (typeof ready)[number],
      ];
    }
    for (const queue of ready) {
      // A slug's next events, in order, while it has room in flight and they share a key.
      while (
        taken.length < size &&
        queue.inFlight < options.inFlightPerSlug &&
        queue.events[0] !== undefined &&
        (apiKeyIndex ?? queue.events[0].apiKeyIndex) === queue.events[0].apiKeyIndex
      ) {
        const planned = queue.events.shift() as PlannedEvent;
        apiKeyIndex = planned.apiKeyIndex;
        queue.inFlight += 1;
        taken.push({ queue, planned });
      }
      if (taken.length >= size) break;
    }
    return taken;
  }

  async function lane(): Promise<void> {
    for (;;) {
      const elapsed = Date.now() - started;
      if (elapsed > options.maxLoadMs * 1.25) return;
      if (elapsed > options.maxLoadMs && sent.length >= options.minEvents) return;
      const taken = takeReady();
      if (taken.length === 0) {
        if (queues.every((q) => q.events.length === 0)) return;
        await new Promise<void>((resolve) => waiting.add(resolve));
        continue;
      }
      // Pacing: event n leaves no earlier than n / rate seconds after the start, rounded
      // down to its group's first event when events leave in groups.
      const due =
        started +
        (Math.floor(scheduled / options.burst) * options.burst * 1_000) / options.eventsPerSecond;
      scheduled += taken.length;
      try {
        await sleep(Math.max(0, due - Date.now()));
        const results =
          options.batch === undefined
            ? [await sendOne((taken[0] as (typeof taken)[number]).planned)]
            : await sendBatch(taken.map(({ planned }) => planned));
        for (const [i, result] of results.entries()) {
          sent.push(result);
          // Per-slug order: a slug whose event was not accepted stops there, since what the
          // API did with it is unknown and the next event must not overtake it. Events of
          // it already in flight go on: they were sent before the bot knew.
          const queue = taken[i]?.queue;
          if (queue !== undefined && !result.accepted && !result.planned.invalid) {
            queue.events.length = 0;
          }
        }
      } finally {
        for (const { queue } of taken) queue.inFlight -= 1;
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

/**
 * How much the slugs' events overlapped: how many left while another of their slug was
 * still unanswered, and the most of one slug in flight at once. 0 and 1 when every slug's
 * events went one after another.
 */
export function overlapOf(sent: SentEvent[]): { overlapped: number; peak: number } {
  const bySlug = new Map<string, SentEvent[]>();
  for (const event of sent) {
    const events = bySlug.get(event.planned.slug) ?? [];
    events.push(event);
    bySlug.set(event.planned.slug, events);
  }
  let overlapped = 0;
  let peak = 0;
  for (const events of bySlug.values()) {
    for (const event of events) {
      // Itself, and the others of its slug that had left and were not yet answered.
      const inFlight =
        1 +
        events.filter(
          (other) =>
            other !== event && other.sentAt <= event.sentAt && other.answeredAt > event.sentAt,
        ).length;
      if (inFlight > 1) overlapped += 1;
      peak = Math.max(peak, inFlight);
    }
  }
  return { overlapped, peak };
}
