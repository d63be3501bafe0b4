import { context, trace, TraceFlags, type Context, type Span } from '@opentelemetry/api';

const tracer = trace.getTracer('ingest');

const isSampled = (span: Span): boolean =>
  (span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0;

/**
 * Runs one batch's write in a span of its own, named `name`, that links the spans of the
 * items it carries (each the span its submitter had open), and adds a link back from
 * each of those to it (the first is its parent): from any one event's trace, the batch that wrote it is a click
 * away, and from the batch, every event in it.
 *
 * The batch's span is a child of its first sampled item's span, so that it is sampled
 * exactly when someone will look at it (at 1% sampling, a batch of unsampled requests
 * records nothing). With tracing off every item's context is empty: no span is made.
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
