import { collectDefaultMetrics, Registry, type Counter } from 'prom-client';

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

/**
 * `counter` with a series at 0 for each of `values` of `label`: a series that appears at
 * its first increment has no earlier sample, so rate() and increase() miss that step.
 */
export function fromZero<Label extends string>(
  counter: Counter<Label>,
  label: Label,
  values: readonly string[],
): Counter<Label> {
  for (const value of values) counter.inc({ [label]: value } as Partial<Record<Label, string>>, 0);
  return counter;
}
