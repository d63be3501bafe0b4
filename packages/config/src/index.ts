import { apiConfigFromEnv, type ApiConfig } from './api-config.js';
import { loadConfig, type Env } from './load-config.js';
import { databaseUrlFromEnv, sharedConfigFromEnv, type SharedConfig } from './shared-env.js';
import { workerConfigFromEnv, type WorkerConfig } from './worker-config.js';

export { ConfigError, loadConfigOrExit, redactUrlPassword, type Env } from './load-config.js';
export type { ApiConfig } from './api-config.js';
export { WORKER_QUEUE_NAMES, type WorkerConfig, type WorkerQueueName } from './worker-config.js';
export { DEFAULT_DATABASE_URL, type SharedConfig } from './shared-env.js';
export {
  CLUSTER_QUEUE_SHARDS,
  DEFAULT_REDIS_URL,
  type ClusterSettings,
  type RedisSettings,
} from './redis-env.js';
export { LOG_LEVELS, type LogLevel } from './env-fields.js';
export { TRACE_SAMPLERS, type TraceSamplerName, type TracingSettings } from './tracing-env.js';

// The only reads of process.env in the code base: each composition root calls one of
// these once at start-up. Tests pass an explicit environment instead.
export const loadApiConfig = (env: Env = process.env): ApiConfig =>
  loadConfig(apiConfigFromEnv, env);
export const loadWorkerConfig = (env: Env = process.env): WorkerConfig =>
  loadConfig(workerConfigFromEnv, env);
/** Settings every process shares (database, Redis, logs): for command-line tools. */
export const loadSharedConfig = (env: Env = process.env): SharedConfig =>
  loadConfig(sharedConfigFromEnv, env);
/** The direct database URL alone (DATABASE_DIRECT_URL, else DATABASE_URL), for the migration tools. */
export const loadDatabaseUrl = (env: Env = process.env): string =>
  loadConfig(databaseUrlFromEnv, env);
