export { createMetricsRegistry, registerQueueDepth, type JobCounter } from './registry.js';
export { checkReadiness, type Probe, type Readiness } from './readiness.js';
export { Counter, Histogram, type Registry } from 'prom-client';
export { exitUnlessServicesAnswer } from './startup.js';
