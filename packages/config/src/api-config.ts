import { z } from 'zod';
import { envBoolean, envInteger, envOptionalUrl, replacedBy } from './env-fields.js';
import { POSTGRES_PROTOCOLS, SharedEnvSchema, sharedSettings } from './shared-env.js';
import { tracingSettings } from './tracing-env.js';

const MIN_SECRET_BYTES = 32;
/**
 * A default secret published in this project's source: anyone can forge a token signed
 * with it, so it is refused whatever else is set.
 */
const FORMER_PUBLIC_JWT_SECRET = 'insecure-development-secret-do-not-use-in-production';

const JwtSecretSchema = z
  .string({
    error: (issue) =>
      issue.input === undefined
        ? `is required (at least ${MIN_SECRET_BYTES} bytes; \`pnpm start\` makes one for a local checkout)`
        : undefined,
  })
  .refine(
    (secret) => Buffer.byteLength(secret) >= MIN_SECRET_BYTES,
    `must be at least ${MIN_SECRET_BYTES} bytes`,
  )
  .refine(
    (secret) => secret !== FORMER_PUBLIC_JWT_SECRET,
    'is a secret published in the source of earlier versions; set one of your own',
  );

const ApiEnvSchema = SharedEnvSchema.extend({
  HOST: z.string().trim().min(1).default('127.0.0.1'),
  PORT: envInteger(3000, { min: 0, max: 65535 }),
  TRUST_PROXY: envBoolean(false),
  /**
   * When set, GET /metrics answers only `Authorization: Bearer <METRICS_TOKEN>`: the API's
   * port is the public one. Unset: it answers anyone who reaches the API.
   */
  METRICS_TOKEN: z.string().trim().min(16, 'must be at least 16 characters').optional(),
  /** Required: `pnpm start` makes one for a local checkout (scripts/start-local.mjs). */
  JWT_SECRET: JwtSecretSchema,
  JWT_EXPIRES_IN_SECONDS: envInteger(3600, { min: 60, max: 30 * 24 * 3600 }),
  API_KEY_QUOTA: envInteger(50, { min: 1, max: 10_000 }),
  AUTH_BODY_LIMIT_BYTES: envInteger(16 * 1024, { min: 1024, max: 1024 * 1024 }),
  CONTENT_BODY_LIMIT_BYTES: envInteger(1024 * 1024, { min: 1024, max: 64 * 1024 * 1024 }),
  /** Largest body of `POST /api/webhooks/content/batch`, and the most events in one. */
  CONTENT_BATCH_LIMIT_BYTES: envInteger(1024 * 1024, { min: 1024, max: 64 * 1024 * 1024 }),
  CONTENT_BATCH_MAX_EVENTS: envInteger(1_000, { min: 1, max: 10_000 }),
  API_KEY_CACHE_TTL_MS: envInteger(1_000, { min: 0, max: 60_000 }),
  /** How long a rotated-out signing secret still verifies, so senders can switch over. */
  SIGNING_SECRET_OVERLAP_HOURS: envInteger(24, { min: 0, max: 30 * 24 }),
  /** Outgoing webhook endpoints an account may hold. */
  WEBHOOK_ENDPOINT_QUOTA: envInteger(20, { min: 1, max: 1_000 }),
  WAIT_MAX_SECONDS: envInteger(30, { min: 0, max: 300 }),
  RATE_LIMIT_REGISTER_PER_IP_PER_HOUR: envInteger(20, { min: 1 }),
  RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE: envInteger(30, { min: 1 }),
  RATE_LIMIT_LOGIN_PER_EMAIL_PER_MINUTE: envInteger(10, { min: 1 }),
  /** Content events per account (all its keys together) per minute, times its queue weight. */
  RATE_LIMIT_CONTENT_PER_ACCOUNT_PER_MINUTE: envInteger(12_000, { min: 1 }),
  /** Receipt reads per account per minute, times its weight: enough to read each event thrice. */
  RATE_LIMIT_RECEIPTS_PER_ACCOUNT_PER_MINUTE: envInteger(36_000, { min: 1 }),
  /**
   * A streaming replica for reads that need not be fresh: public reads without
   * credentials, the operators' event search and storage view. Unset: the primary.
   */
  DATABASE_READ_URL: envOptionalUrl(POSTGRES_PROTOCOLS),
  /** Reads go back to the primary while the replica is further behind than this. */
  DATABASE_READ_MAX_LAG_MS: envInteger(5_000, { min: 0, max: 3_600_000 }),
  /** Requests the API works on at once, shared fairly between tenants; 0: no admission control. */
  ADMISSION_CONCURRENCY: envInteger(128, { min: 0, max: 100_000 }),
  /** How long a tenant's requests may queue for a place before its new ones are refused. */
  ADMISSION_MAX_QUEUE_MS: envInteger(50, { min: 1, max: 60_000 }),
  // Retired settings, refused by name so that an operator who set one learns what
  // replaced it instead of running without it.
  RATE_LIMIT_CONTENT_PER_KEY_PER_MINUTE: replacedBy('RATE_LIMIT_CONTENT_PER_ACCOUNT_PER_MINUTE'),
  SHED_LOAD_EVENT_LOOP_DELAY_MS: replacedBy('ADMISSION_MAX_QUEUE_MS'),
  SHED_LOAD_EVENT_LOOP_UTILIZATION_PERMILLE: replacedBy('ADMISSION_CONCURRENCY'),
});

export const apiConfigFromEnv = ApiEnvSchema.transform((env) => {
  const shared = sharedSettings(env);
  return {
    ...shared,
    webhooks: { ...shared.webhooks, endpointQuota: env.WEBHOOK_ENDPOINT_QUOTA },
    http: { host: env.HOST, port: env.PORT, trustProxy: env.TRUST_PROXY },
    metrics: { token: env.METRICS_TOKEN ?? null },
    tracing: tracingSettings(env, 'ingest-api'),
    auth: {
      jwtSecret: env.JWT_SECRET,
      jwtExpiresInSeconds: env.JWT_EXPIRES_IN_SECONDS,
      apiKeyQuota: env.API_KEY_QUOTA,
      apiKeyCacheTtlMs: env.API_KEY_CACHE_TTL_MS,
      signingSecretOverlapHours: env.SIGNING_SECRET_OVERLAP_HOURS,
    },
    limits: {
      authBodyBytes: env.AUTH_BODY_LIMIT_BYTES,
      contentBodyBytes: env.CONTENT_BODY_LIMIT_BYTES,
      batchBodyBytes: env.CONTENT_BATCH_LIMIT_BYTES,
      batchMaxEvents: env.CONTENT_BATCH_MAX_EVENTS,
      waitMaxSeconds: env.WAIT_MAX_SECONDS,
      registerPerIpPerHour: env.RATE_LIMIT_REGISTER_PER_IP_PER_HOUR,
      loginPerIpPerMinute: env.RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE,
      loginPerEmailPerMinute: env.RATE_LIMIT_LOGIN_PER_EMAIL_PER_MINUTE,
      contentPerAccountPerMinute: env.RATE_LIMIT_CONTENT_PER_ACCOUNT_PER_MINUTE,
      receiptsPerAccountPerMinute: env.RATE_LIMIT_RECEIPTS_PER_ACCOUNT_PER_MINUTE,
    },
    readReplica: {
      url: env.DATABASE_READ_URL ?? null,
      maxLagMs: env.DATABASE_READ_MAX_LAG_MS,
    },
    admission: {
      concurrency: env.ADMISSION_CONCURRENCY,
      maxQueueMs: env.ADMISSION_MAX_QUEUE_MS,
    },
  };
});

export type ApiConfig = z.output<typeof apiConfigFromEnv>;
