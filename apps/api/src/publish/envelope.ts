import {
  EVENT_NAMES,
  EVENT_TYPES,
  isEventName,
  type EventData,
  type EventName,
} from '@ingest/events';
import { AppError, type ContentLimits, type FieldProblem } from '@ingest/contracts';

export interface Envelope {
  event: EventName;
  data: unknown;
}

const ENVELOPE_FIELDS = new Set(['event', 'data']);

const invalid = (errors: FieldProblem[]) =>
  new AppError(
    'VALIDATION_FAILED',
    `The event has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}`,
    { errors },
  );

/**
 * Checks `{ event, data }` around the payload, throwing 400 or UNKNOWN_EVENT when it is
 * not one; the payload itself is checked by its schema.
 */
export function checkEnvelope(body: unknown): Envelope {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid([{ path: '', message: 'must be an object: { "event": ..., "data": {...} }' }]);
  }
  const envelope = body as Record<string, unknown>;
  const problems: FieldProblem[] = Object.keys(envelope)
    .filter((key) => !ENVELOPE_FIELDS.has(key))
    .map((key) => ({ path: key, message: 'is not a field of an event (only event and data are)' }));
  if (envelope.event === undefined) problems.push({ path: 'event', message: 'is required' });
  else if (typeof envelope.event !== 'string')
    problems.push({ path: 'event', message: 'must be a string' });
  if (envelope.data === undefined) problems.push({ path: 'data', message: 'is required' });
  else if (
    typeof envelope.data !== 'object' ||
    envelope.data === null ||
    Array.isArray(envelope.data)
  ) {
    problems.push({ path: 'data', message: 'must be an object' });
  }
  if (typeof envelope.event === 'string' && !isEventName(envelope.event)) {
    throw new AppError(
      'UNKNOWN_EVENT',
      `Unknown event "${envelope.event.slice(0, 100).toWellFormed()}"; supported: ${EVENT_NAMES.join(', ')}`,
      { extensions: { supportedEvents: [...EVENT_NAMES] } },
    );
  }
  if (problems.length > 0) throw invalid(problems);
  return { event: envelope.event as EventName, data: envelope.data };
}

/**
 * An event's payload as its schema parses it, or 400 VALIDATION_FAILED with field paths
 * given from the body: `data.title`.
 */
export function checkPayload<Name extends EventName>(
  limits: ContentLimits,
  event: Name,
  data: unknown,
): EventData<Name> {
  const result = EVENT_TYPES[event].dataSchema(limits).safeParse(data);
  if (result.success) return result.data;
  const seen = new Set<string>();
  const errors: FieldProblem[] = [];
  const add = (segments: PropertyKey[], message: string) => {
    const path = ['data', ...segments.map(String)].join('.');
    if (seen.has(path)) return; // one entry a field
    seen.add(path);
    errors.push({ path, message });
  };
  for (const issue of result.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add([...issue.path, key], `is not a field of ${event}`);
    } else {
      add(issue.path, issue.message);
    }
  }
  throw invalid(errors);
}
