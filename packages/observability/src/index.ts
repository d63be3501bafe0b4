export { createMetricsRegistry, fromZero } from './registry.js';
export { registerQueueDepth, type QueueDepth } from './queue-metrics.js';
export { registerEventLogStorage, type EventLogFigures } from './event-log-metrics.js';
export { oneReadPerScrape } from './within.js';
export { checkReadiness, type Probe, type Readiness } from './readiness.js';
export { Counter, Gauge, Histogram, type Registry } from 'prom-client';
export { exitUnlessServicesAnswer } from './startup.js';
export { startTracing, type Tracing } from './tracing/start-tracing.js';
export { eventAttributes, inSpan, traceLogging } from './tracing/spans.js';
