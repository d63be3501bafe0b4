import { Gauge, type Registry } from 'prom-client';
import { oneReadPerScrape } from './within.js';

/** What the queue holds, as @ingest/queue's readQueueDepth reads it. */
export interface QueueDepth {
  counts: Record<string, number>;
  /** Seconds since the job next in line was added; null when no job waits. */
  oldestWaitingAgeSeconds: number | null;
  /** Whether an operator paused the queue (every shard). */
  paused: boolean;
}

/**
 * The queue's series, read from Redis at each scrape rather than kept up to date between:
 * - `ingest_queue_up`: 1 when Redis answered for this scrape, 0 when it did not;
 * - `ingest_queue_jobs{state}`, `ingest_queue_oldest_waiting_age_seconds` and
 *   `ingest_queue_paused`, only when it answered.
 * A read that takes longer than `timeoutMs` counts as no answer: the worker's connection
 * waits for Redis to come back rather than failing, and a scrape must not wait with it.
 */
export function registerQueueDepth(
  registry: Registry,
  readDepth: () => Promise<QueueDepth>,
  timeoutMs = 2_000,
): void {
  // The exporters' convention (mysql_up, redis_up): a 0 to alert on, and no figures
  // rather than the last ones read, which a scrape would pass off as current. Prometheus
  // marks the missing series stale at once, so graphs show a gap, not a flat line.
  const read = oneReadPerScrape(readDepth, timeoutMs);

  new Gauge({
    name: 'ingest_queue_up',
    help: 'Whether Redis answered for the content-events queue at this scrape (1) or not (0)',
    registers: [registry],
    async collect() {
      this.set((await read()) === undefined ? 0 : 1);
    },
  });
  new Gauge({
    name: 'ingest_queue_jobs',
    help: 'Jobs in the content-events queue, per BullMQ state; absent while ingest_queue_up is 0',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const depth = await read();
      this.reset();
      if (depth === undefined) return;
      for (const [state, count] of Object.entries(depth.counts)) this.set({ state }, count);
    },
  });
  new Gauge({
    name: 'ingest_queue_oldest_waiting_age_seconds',
    help: 'Seconds since the job next in line was added (0 when none waits); absent while ingest_queue_up is 0',
    registers: [registry],
    async collect() {
      const depth = await read();
      // An empty queue has kept nobody waiting: 0 lets `> N` alerts stand as written.
      if (depth === undefined) this.remove();
      else this.set(depth.oldestWaitingAgeSeconds ?? 0);
    },
  });
  new Gauge({
    name: 'ingest_queue_paused',
    help: 'Whether an operator paused the content-events queue (1) or not (0); absent while ingest_queue_up is 0',
    registers: [registry],
    async collect() {
      const depth = await read();
      if (depth === undefined) this.remove();
      else this.set(depth.paused ? 1 : 0);
    },
  });
}
