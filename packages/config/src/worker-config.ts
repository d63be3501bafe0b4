import type { z } from 'zod';
import { SharedEnvSchema, sharedSettings } from './shared-env.js';

export const workerConfigFromEnv = SharedEnvSchema.transform((env) => ({
  ...sharedSettings(env),
}));

export type WorkerConfig = z.output<typeof workerConfigFromEnv>;
