import type { Context } from '@opentelemetry/api';
import type { JobsOptions, Queue, Telemetry } from 'bullmq';
import { BullMQOtel } from 'bullmq-otel';

/**
 * BullMQ's own OpenTelemetry spans (add, process, ...) and the trace context carried in
 * each job (its `telemetry.metadata`), when tracing is on; undefined leaves BullMQ
 * without telemetry, which costs nothing.
 */
export const queueTelemetry = (tracing: { enabled: boolean }): Telemetry | undefined =>
  tracing.enabled ? new BullMQOtel({ tracerName: 'bullmq' }) : undefined;

/**
 * The job options that make a job's spans children of `trace` (the span of the event it
 * carries) rather than of the bulk add that queued it with others. Nothing when the queue
 * has no telemetry or there is no trace.
 */
export function tracedJobOptions(queue: Queue, trace: Context | undefined): JobsOptions {
  const telemetry = queue.opts.telemetry;
  if (telemetry === undefined || trace === undefined) return {};
  return { telemetry: { metadata: telemetry.contextManager.getMetadata(trace) } };
}
