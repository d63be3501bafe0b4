import { type z } from 'zod';
import { envInteger } from './env-fields.js';
import { SharedEnvSchema, sharedSettings } from './shared-env.js';

const WorkerEnvSchema = SharedEnvSchema.extend({
  WORKER_CONCURRENCY: envInteger(16, { min: 1, max: 1_000 }),
  /** How often the outbox reconciler looks for recorded events that never reached Redis. */
  RECONCILE_INTERVAL_MS: envInteger(5_000, { min: 100 }),
  /** How old a queued event must be before the reconciler checks on it. */
  RECONCILE_AFTER_MS: envInteger(10_000, { min: 100 }),
});

export const workerConfigFromEnv = WorkerEnvSchema.transform((env) => ({
  ...sharedSettings(env),
  worker: {
    concurrency: env.WORKER_CONCURRENCY,
    reconcileIntervalMs: env.RECONCILE_INTERVAL_MS,
    reconcileAfterMs: env.RECONCILE_AFTER_MS,
  },
}));

export type WorkerConfig = z.output<typeof workerConfigFromEnv>;
