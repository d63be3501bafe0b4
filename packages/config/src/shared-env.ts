import { z } from 'zod';
import { contentLimitsFrom, ContentEnvSchema } from './content-env.js';
import { RedisEnvSchema, redisSettings } from './redis-env.js';
import {
  RetentionBoundsEnvSchema,
  retentionBoundsHold,
  retentionBoundsOf,
} from './retention-env.js';
import { TracingEnvSchema } from './tracing-env.js';
import { isAllowedPrivateEntry } from '@ingest/webhook-delivery';
import {
  commaList,
  envBoolean,
  envDuration,
  envDurations,
  envInteger,
  envLogLevel,
  envOptionalInteger,
  envOptionalUrl,
  envUrl,
} from './env-fields.js';

export const DEFAULT_DATABASE_URL = 'postgresql://postgres:postgres@127.0.0.1:5432/ingest';

export const POSTGRES_PROTOCOLS = ['postgres:', 'postgresql:'];
const databaseUrl = envUrl(DEFAULT_DATABASE_URL, POSTGRES_PROTOCOLS);
/**
 * PostgreSQL itself, when DATABASE_URL goes through a pooler in transaction mode
 * (PgBouncer): what needs a session of its own (LISTEN, session locks, DDL outside a
 * transaction, migrations) connects here. Unset: DATABASE_URL, no pooler in between.
 */
const directDatabaseUrl = envOptionalUrl(POSTGRES_PROTOCOLS);

/**
 * The database URL alone, direct (DATABASE_DIRECT_URL, else DATABASE_URL): what the
 * migration tools read, so no other setting can stop them.
 */
export const databaseUrlFromEnv = z
  .object({ DATABASE_URL: databaseUrl, DATABASE_DIRECT_URL: directDatabaseUrl })
  .transform((env) => env.DATABASE_DIRECT_URL ?? env.DATABASE_URL);

/**
 * Settings every process shares: where PostgreSQL and Redis are, how much to log, the
 * content limits, and how queued jobs are retried and kept.
 */
export const SharedEnvSchema = ContentEnvSchema.extend({
  DATABASE_URL: databaseUrl,
  DATABASE_DIRECT_URL: directDatabaseUrl,
  DATABASE_POOL_SIZE: envInteger(10, { min: 1, max: 200 }),
  DATABASE_STATEMENT_TIMEOUT_MS: envInteger(10_000, { min: 100 }),
  ...RedisEnvSchema.shape,
  ...TracingEnvSchema.shape,
  LOG_LEVEL: envLogLevel,
  JOB_ATTEMPTS: envInteger(8, { min: 1, max: 100 }),
  JOB_BACKOFF_MS: envInteger(1_000, { min: 10 }),
  JOB_KEEP_COMPLETED_SECONDS: envInteger(60, { min: 0 }),
  JOB_KEEP_FAILED_SECONDS: envInteger(7 * 24 * 3_600, { min: 0 }),
  IDEMPOTENCY_KEY_TTL_HOURS: envInteger(24, { min: 1, max: 24 * 365 }),
  /** The event log's partitions: one per hour, day or week of event ids (UTC). */
  EVENT_LOG_PARTITION: z.enum(['hour', 'day', 'week']).default('day'),
  /** Days the event log keeps an event; older partitions are dropped. 0 keeps everything. */
  EVENT_LOG_RETENTION_DAYS: envInteger(30, { min: 0, max: 100 * 365 }),
  /** The bounds of an account's own retention, which operators set (retention-env.ts). */
  ...RetentionBoundsEnvSchema.shape,
  /** Where partitions are archived before they are dropped; unset: dropped unarchived. */
  EVENT_LOG_ARCHIVE_DIR: z.string().trim().min(1).optional(),
  /**
   * Days an outgoing webhook message and its deliveries are kept; older ones are deleted
   * unless a delivery of theirs is still pending. 0 keeps everything. Unset: as the event log.
   */
  WEBHOOK_RETENTION_DAYS: envOptionalInteger({ min: 0, max: 100 * 365 }),
  /** Outgoing webhooks to plain http URLs: for local development and tests only. */
  WEBHOOK_ALLOW_HTTP: envBoolean(false),
  /**
   * Hosts, addresses and CIDRs (comma-separated) that outgoing webhooks may reach although
   * private or loopback: receivers inside a deployment, and the tests'. Default: none.
   */
  WEBHOOK_ALLOWED_PRIVATE_HOSTS: z
    .string()
    .default('')
    .transform(commaList)
    .refine(
      (entries) => entries.every(isAllowedPrivateEntry),
      'must be host names, IP addresses or CIDRs, separated by commas',
    ),
  /**
   * When each attempt of a delivery is made, counted from the one before: the first at
   * once, then Svix's schedule (about 27 hours in all). Its length is the number of attempts.
   */
  WEBHOOK_RETRY_SCHEDULE: envDurations('0,5s,5m,30m,2h,5h,10h,10h', { minItems: 1, maxItems: 50 }),
  /** How long one delivery attempt may take, connection to the end of the answer. */
  WEBHOOK_TIMEOUT_MS: envInteger(15_000, { min: 100, max: 120_000 }),
  /** How much of a receiver's answer is read and kept. */
  WEBHOOK_RESPONSE_MAX_BYTES: envInteger(64 * 1024, { min: 0, max: 1024 * 1024 }),
  /**
   * The breaker: an endpoint whose every attempt has failed for this long is paused at its
   * next failed attempt; its deliveries wait, held, until it is resumed.
   */
  WEBHOOK_BREAKER_AFTER: envDuration('6h', { minMs: 1_000, maxMs: 30 * 86_400_000 }),
}).check(retentionBoundsHold);

export function sharedSettings(env: z.output<typeof SharedEnvSchema>) {
  return {
    database: {
      url: env.DATABASE_URL,
      directUrl: env.DATABASE_DIRECT_URL ?? env.DATABASE_URL,
      poolSize: env.DATABASE_POOL_SIZE,
      statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
    },
    redis: redisSettings(env),
    log: { level: env.LOG_LEVEL },
    content: contentLimitsFrom(env),
    jobs: {
      attempts: env.JOB_ATTEMPTS,
      backoffMs: env.JOB_BACKOFF_MS,
      keepCompletedSeconds: env.JOB_KEEP_COMPLETED_SECONDS,
      keepFailedSeconds: env.JOB_KEEP_FAILED_SECONDS,
    },
    // A key never outlives its event: it would name an event the log no longer holds.
    idempotency: {
      ttlHours:
        env.EVENT_LOG_RETENTION_DAYS === 0
          ? env.IDEMPOTENCY_KEY_TTL_HOURS
          : Math.min(env.IDEMPOTENCY_KEY_TTL_HOURS, env.EVENT_LOG_RETENTION_DAYS * 24),
    },
    eventLog: {
      interval: env.EVENT_LOG_PARTITION,
      retentionDays: env.EVENT_LOG_RETENTION_DAYS,
      retentionBounds: retentionBoundsOf(env),
      archiveDir: env.EVENT_LOG_ARCHIVE_DIR ?? null,
    },
    webhooks: {
      allowHttp: env.WEBHOOK_ALLOW_HTTP,
      allowedPrivateHosts: env.WEBHOOK_ALLOWED_PRIVATE_HOSTS,
      retryScheduleMs: env.WEBHOOK_RETRY_SCHEDULE,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      responseMaxBytes: env.WEBHOOK_RESPONSE_MAX_BYTES,
      breakerAfterMs: env.WEBHOOK_BREAKER_AFTER,
      retentionDays: env.WEBHOOK_RETENTION_DAYS ?? env.EVENT_LOG_RETENTION_DAYS,
    },
  };
}

export const sharedConfigFromEnv = SharedEnvSchema.transform(sharedSettings);
export type SharedConfig = z.output<typeof sharedConfigFromEnv>;
