import { AppError, type ContentLimits } from '@ingest/contracts';
import type { EventRow } from '@ingest/event-log';
import {
  EVENT_TYPES,
  isEventName,
  type Change,
  type EventData,
  type EventName,
} from '@ingest/events';

/**
 * An event routed by name. Built only by routeEvent, which parses the payload with the
 * schema of that name, so `event` and `change.data` agree; code that takes one is generic
 * in the name, which keeps the two together without a cast.
 */
export interface RoutedEvent<Name extends EventName = EventName> {
  event: Name;
  change: Change<EventData<Name>>;
}

/**
 * Routes a recorded event by name and validates its payload again (the limits may have
 * changed since it was accepted). An event that cannot be routed or no longer validates
 * is the event's own fault: an AppError, which fails it without retries.
 */
export function routeEvent(
  row: Pick<EventRow, 'id' | 'event' | 'accountId' | 'payload'>,
  limits: ContentLimits,
): RoutedEvent {
  if (!isEventName(row.event)) {
    throw new AppError(
      'UNKNOWN_EVENT',
      `The recorded event "${String(row.event)}" has no processor`,
    );
  }
  return routed(row.event, row, limits);
}

function routed<Name extends EventName>(
  event: Name,
  row: Pick<EventRow, 'id' | 'accountId' | 'payload'>,
  limits: ContentLimits,
): RoutedEvent<Name> {
  const parsed = EVENT_TYPES[event].dataSchema(limits).safeParse(row.payload);
  if (!parsed.success) {
    throw new AppError(
      'VALIDATION_FAILED',
      'The payload no longer passes validation (were the limits changed?)',
    );
  }
  return {
    event,
    change: { eventId: row.id, accountId: row.accountId, data: parsed.data, limits },
  };
}
