import type { ContentLimits, EventData, EventName, EventResult } from '@ingest/contracts';
import type { Prisma } from '@ingest/db';
import type { Logger } from '@ingest/logger';

export type Tx = Prisma.TransactionClient;

export interface ProcessorContext<Name extends EventName> {
  /** The transaction the change and the event's new status are committed in together. */
  tx: Tx;
  accountId: string;
  eventId: string;
  data: EventData<Name>;
  limits: ContentLimits;
  log: Logger;
}

/**
 * Applies one event inside the caller's transaction and says what changed. A failure
 * the event itself causes (not found, slug taken) is an AppError: it fails the event at
 * once. Anything else is treated as transient and retried.
 */
export type Processor<Name extends EventName> = (
  context: ProcessorContext<Name>,
) => Promise<EventResult>;
