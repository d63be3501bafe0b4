import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TracingSettings } from '@ingest/config';

export interface Tracing {
  /** Sends the spans still buffered and stops; the last step of a clean shutdown. */
  shutdown(): Promise<void>;
}

type Enabled = Extract<TracingSettings, { enabled: true }>;

function samplerOf(settings: Enabled): Sampler {
  const ratio = () => new TraceIdRatioBasedSampler(settings.ratio);
  switch (settings.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio() });
  }
}

/**
 * Registers OpenTelemetry's tracer provider, context manager and W3C propagator for this
 * process, exporting over OTLP/HTTP; undefined when tracing is off, which leaves the API's
 * no-op implementations in place (and BullMQ without telemetry). Call it before anything
 * creates a span: the composition root does, first.
 *
 * Only the pieces this service uses are registered, by hand rather than through the
 * NodeSDK: the SDK would also read process.env itself, where every other setting comes
 * through @ingest/config, and would patch modules it was not asked about.
 */
export function startTracing(settings: TracingSettings): Tracing | undefined {
  if (!settings.enabled) return undefined;
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      ...settings.resourceAttributes,
      [ATTR_SERVICE_NAME]: settings.serviceName,
    }),
    sampler: samplerOf(settings),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: settings.url, headers: settings.headers }),
        scheduledDelayMillis: settings.scheduleDelayMs,
        maxExportBatchSize: settings.maxExportBatchSize,
        maxQueueSize: settings.maxQueueSize,
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return { shutdown: () => provider.shutdown() };
}
