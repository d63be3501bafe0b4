import type { AcceptedEvent, AppError } from '@ingest/contracts';
import { newEventId, type RejectedEvent } from '@ingest/event-log';
import type { KeyPrincipal } from '../access/principal.js';
import type { ApiDeps } from '../deps.js';
import { recordableEventName, recordablePayload } from './recordable-payload.js';

// What the publish path answers and counts for each event of a call.

type Deps = Pick<ApiDeps, 'db' | 'counters' | 'metrics' | 'logger'>;

export const acceptedAnswer = (id: string, event: string, receivedAt: Date): AcceptedEvent => ({
  id,
  event,
  status: 'queued',
  receivedAt: receivedAt.toISOString(),
});

/** The first answers of the events that Idempotency-Keys named again, by id. */
export async function originalAnswers(
  deps: Pick<Deps, 'db'>,
  eventIds: string[],
): Promise<Map<string, AcceptedEvent>> {
  if (eventIds.length === 0) return new Map();
  const originals = await deps.db.prisma.webhookLog.findMany({
    where: { id: { in: eventIds } },
    select: { id: true, event: true, receivedAt: true },
  });
  return new Map(
    originals.map((original) => [
      original.id,
      acceptedAnswer(original.id, original.event ?? '', original.receivedAt),
    ]),
  );
}

/** The first answer of the event an Idempotency-Key named again: it must still be there. */
export function originalOf(originals: Map<string, AcceptedEvent>, eventId: string): AcceptedEvent {
  const original = originals.get(eventId);
  if (original === undefined) throw new Error(`event ${eventId} of a key is gone`);
  return original;
}

export function countAccepted(
  deps: Pick<Deps, 'counters' | 'metrics'>,
  { event, accountId }: { event: string; accountId: string },
) {
  deps.counters.accepted.increment(1, accountId);
  deps.metrics.eventsAccepted.inc({ event });
}

/** A refused call or event, as the event log records it: what was sent, and why not. */
export function rejectedRow(
  caller: { principal: KeyPrincipal; requestId: string },
  sent: unknown,
  error: AppError,
  event: unknown = typeof sent === 'object' && sent !== null ? Reflect.get(sent, 'event') : null,
): RejectedEvent {
  return {
    id: newEventId(),
    accountId: caller.principal.accountId,
    apiKeyId: caller.principal.apiKeyId,
    requestId: caller.requestId,
    event: recordableEventName(event),
    payload: recordablePayload(sent),
    // The message and field paths may quote what was sent (an unknown field's name):
    // cleaned like the payload, or PostgreSQL would refuse the row.
    error: recordablePayload({
      code: error.code,
      message: error.message,
      ...(error.errors ? { errors: error.errors } : {}),
    }),
  };
}

/** Counts refused events; logs each of a call, or one line for a batch's. */
export function countRejected(
  deps: Pick<Deps, 'counters' | 'metrics' | 'logger'>,
  { requestId, principal }: { requestId: string; principal: KeyPrincipal },
  refused: Array<{ eventId: string; code: string }>,
): void {
  refused.forEach(({ code }) => deps.metrics.eventsRejected.inc({ code }));
  if (refused.length > 0) deps.counters.rejected.increment(refused.length, principal.accountId);
  const [only] = refused;
  if (refused.length === 1 && only !== undefined) {
    deps.logger.info({ eventId: only.eventId, requestId, code: only.code }, 'event rejected');
  } else if (refused.length > 1) {
    const codes = [...new Set(refused.map(({ code }) => code))];
    deps.logger.info({ requestId, rejected: refused.length, codes }, 'batch events rejected');
  }
}
