import { z } from 'zod';
import { commaList, envBoolean, envInteger, envOptionalUrl } from './env-fields.js';

const HTTP_PROTOCOLS = ['http:', 'https:'];

/** OpenTelemetry's sampler names (OTEL_TRACES_SAMPLER) that this service honours. */
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type TraceSamplerName = (typeof TRACE_SAMPLERS)[number];

/** `key=value,key=value` (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES), values URL-decoded. */
const keyValueList = z
  .string()
  .default('')
  .transform(commaList)
  .refine(
    (entries) => entries.every((entry) => /^[^=]+=.*$/.test(entry)),
    'must be key=value pairs, separated by commas',
  )
  .transform((entries) =>
    Object.fromEntries(
      entries.map((entry) => {
        const at = entry.indexOf('=');
        return [entry.slice(0, at).trim(), decodeURIComponent(entry.slice(at + 1).trim())];
      }),
    ),
  );

/**
 * The standard OpenTelemetry variables, those of them this service reads. Tracing is off
 * unless an OTLP endpoint is named: nothing is exported to a default address nobody chose.
 */
export const TracingEnvSchema = z.object({
  OTEL_SDK_DISABLED: envBoolean(false),
  /** `otlp` (the default) or `none`; OTLP goes over HTTP with JSON bodies. */
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none']).default('otlp'),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(['http/json']).optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.enum(['http/json']).optional(),
  /** The collector's base URL: traces go to `<it>/v1/traces`. */
  OTEL_EXPORTER_OTLP_ENDPOINT: envOptionalUrl(HTTP_PROTOCOLS),
  /** The full URL traces are posted to; wins over OTEL_EXPORTER_OTLP_ENDPOINT. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: envOptionalUrl(HTTP_PROTOCOLS),
  /** Sent with every export (a collector's API key): never logged. */
  OTEL_EXPORTER_OTLP_HEADERS: keyValueList,
  OTEL_SERVICE_NAME: z.string().trim().min(1).optional(),
  OTEL_RESOURCE_ATTRIBUTES: keyValueList,
  OTEL_TRACES_SAMPLER: z.enum(TRACE_SAMPLERS).default('parentbased_always_on'),
  /** The ratio of the `traceidratio` samplers, 0 to 1. */
  OTEL_TRACES_SAMPLER_ARG: z
    .string()
    .trim()
    .regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'must be a number from 0 to 1')
    .transform(Number)
    .default(1),
  /** How often finished spans are sent, and how many at most per export. */
  OTEL_BSP_SCHEDULE_DELAY: envInteger(5_000, { min: 0 }),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: envInteger(512, { min: 1 }),
  OTEL_BSP_MAX_QUEUE_SIZE: envInteger(2_048, { min: 1 }),
});

export type TracingSettings =
  | { enabled: false }
  | {
      enabled: true;
      /** Where spans are posted. */
      url: string;
      headers: Record<string, string>;
      serviceName: string;
      resourceAttributes: Record<string, string>;
      sampler: TraceSamplerName;
      ratio: number;
      scheduleDelayMs: number;
      maxExportBatchSize: number;
      maxQueueSize: number;
    };

/** The tracing settings of a process whose service is `defaultServiceName` unless named. */
export function tracingSettings(
  env: z.output<typeof TracingEnvSchema>,
  defaultServiceName: string,
): TracingSettings {
  const url =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (env.OTEL_EXPORTER_OTLP_ENDPOINT === undefined
      ? undefined
      : `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`);
  if (env.OTEL_SDK_DISABLED || env.OTEL_TRACES_EXPORTER === 'none' || url === undefined) {
    return { enabled: false };
  }
  return {
    enabled: true,
    url,
    headers: env.OTEL_EXPORTER_OTLP_HEADERS,
    serviceName: env.OTEL_SERVICE_NAME ?? defaultServiceName,
    resourceAttributes: env.OTEL_RESOURCE_ATTRIBUTES,
    sampler: env.OTEL_TRACES_SAMPLER,
    ratio: env.OTEL_TRACES_SAMPLER_ARG,
    scheduleDelayMs: env.OTEL_BSP_SCHEDULE_DELAY,
    maxExportBatchSize: env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
    maxQueueSize: env.OTEL_BSP_MAX_QUEUE_SIZE,
  };
}
