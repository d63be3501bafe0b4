import { collectDefaultMetrics, Registry } from 'prom-client';

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
