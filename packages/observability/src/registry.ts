import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';

/**
 * A Prometheus registry of the process's own (not prom-client's global one, so that
 * several apps can live in one test process), with Node's process metrics (CPU, memory,
 * event-loop lag, GC) and an `app` label on every series.
 */
export function createMetricsRegistry(app: 'api' | 'worker'): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ app });
  collectDefaultMetrics({ register: registry });
  return registry;
}

export interface JobCounter {
  getJobCounts(...states: string[]): Promise<Record<string, number>>;
}

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'];

/** `ingest_queue_jobs{state}`: read from BullMQ when scraped, not kept up to date between. */
export function registerQueueDepth(registry: Registry, queue: JobCounter): void {
  new Gauge({
    name: 'ingest_queue_jobs',
    help: 'Jobs in the content-events queue, per BullMQ state',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const counts = await queue.getJobCounts(...QUEUE_STATES).catch(() => undefined);
      if (counts === undefined) return; // Redis away: report nothing rather than zeros
      for (const state of QUEUE_STATES) this.set({ state }, counts[state] ?? 0);
    },
  });
}
