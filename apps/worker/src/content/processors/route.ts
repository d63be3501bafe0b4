import {
  AppError,
  isEventName,
  type ContentLimits,
  type EventData,
  type EventName,
  type EventSchemas,
} from '@ingest/contracts';
import type { EventRow } from '@ingest/event-log';
import type { Logger } from '@ingest/logger';
import type { z } from 'zod';
import type { RoutedEvent } from './catalog.js';

/** The payload schemas, typed so that the schema of name N parses to EventData<N>. */
export type PayloadSchemas = { [Name in EventName]: z.ZodType<EventData<Name>> };

/**
 * Routes a recorded event by name and validates its payload again (the limits may have
 * changed since it was accepted). An event that cannot be routed or no longer validates
 * is the event's own fault: an AppError, which fails it without retries.
 */
export function routeEvent(
  schemas: EventSchemas,
  row: Pick<EventRow, 'id' | 'event' | 'accountId' | 'payload'>,
  limits: ContentLimits,
  log: Logger,
): RoutedEvent {
  if (!isEventName(row.event)) {
    throw new AppError(
      'UNKNOWN_EVENT',
      `The recorded event "${String(row.event)}" has no processor`,
    );
  }
  return routed(schemas, row.event, row, limits, log);
}

function routed<Name extends EventName>(
  schemas: PayloadSchemas,
  event: Name,
  row: Pick<EventRow, 'id' | 'accountId' | 'payload'>,
  limits: ContentLimits,
  log: Logger,
): RoutedEvent<Name> {
  const parsed = schemas[event].safeParse(row.payload);
  if (!parsed.success) {
    throw new AppError(
      'VALIDATION_FAILED',
      'The payload no longer passes validation (were the limits changed?)',
    );
  }
  return {
    event,
    change: { eventId: row.id, accountId: row.accountId, data: parsed.data, limits, log },
  };
}
