import { context, trace, TraceFlags, type Context, type Span } from '@opentelemetry/api';

const tracer = trace.getTracer('ingest');

const isSampled = (span: Span): boolean =>
  (span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0;

/**
 * Runs one batch's write in a span named `name`, linked both ways with the spans of the
 * items it carries, so that an event's trace leads to its batch and the batch to each event.
 *
 * The span is a child of the first sampled item's span, so it is recorded exactly when
 * some item's trace is: a batch of unsampled items records nothing, and with tracing off
 * no span is made.
 */
export async function inBatchSpan<T>(
  name: string,
  members: readonly Context[],
  write: () => Promise<T>,
): Promise<T> {
  const spans = members.flatMap((member) => trace.getSpan(member) ?? []);
  const sampled = spans.filter(isSampled);
  const parent = sampled[0] ?? spans[0];
  if (parent === undefined) return write();
  return tracer.startActiveSpan(
    name,
    {
      attributes: { 'ingest.batch.size': members.length },
      links: sampled.slice(1).map((span) => ({ context: span.spanContext() })),
    },
    trace.setSpan(context.active(), parent),
    async (batch) => {
      for (const span of sampled.slice(1)) span.addLink({ context: batch.spanContext() });
      try {
        return await write();
      } catch (error) {
        batch.recordException(error as Error);
        throw error;
      } finally {
        batch.end();
      }
    },
  );
}
