import {
  context,
  isSpanContextValid,
  SpanKind,
  trace,
  type Attributes,
  type Span,
} from '@opentelemetry/api';

const tracer = trace.getTracer('ingest');

/**
 * Runs `work` in a span named `name`, a child of the active one, and ends it when `work`
 * settles, recording what it threw. With tracing off the tracer is OpenTelemetry's no-op:
 * the cost is a closure and a non-recording span object.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  return tracer.startActiveSpan(name, { attributes, kind }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The logger options of a process: trace ids on its lines when tracing is on, else nothing. */
export const traceLogging = (tracing: { enabled: boolean }) =>
  tracing.enabled ? { mixin: traceFields } : {};

/**
 * The fields a log line gets while a span is active: the standard names a log backend
 * joins on (`trace_id`, `span_id`, as OpenTelemetry's pino instrumentation writes them).
 * A pino `mixin`: installed only when tracing is on.
 */
export function traceFields(): Record<string, string> {
  const spanContext = trace.getSpanContext(context.active());
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/** What names an event on its spans. */
export const eventAttributes = (event: {
  id: string;
  event: string | null;
  accountId: string;
}): Attributes => ({
  'ingest.event.id': event.id,
  'ingest.event.name': event.event ?? 'unknown',
  'ingest.account.id': event.accountId,
});
