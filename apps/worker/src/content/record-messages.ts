import type { Names, OutboxEntry, Tx } from '@ingest/events';
import { v7 as uuidv7 } from 'uuid';

interface Subscriber {
  id: string;
  accountId: string;
  events: string[];
  /** The transaction's time: when the changes were applied. */
  at: Date;
}

export interface RecordedDelivery {
  deliveryId: string;
  eventId: string;
}

/**
 * The outbox of outgoing webhooks: one message for each change that an enabled endpoint of
 * its account subscribes to, and one pending delivery for each such endpoint, written in the
 * transaction that applied the changes. A change that rolls back takes its message with it;
 * a committed one cannot lose it. Returns the deliveries' ids, to queue once the transaction
 * has committed. An account without endpoints costs one indexed read per transaction.
 */
export async function recordMessages(
  tx: Tx,
  changes: OutboxEntry[],
  firstAttemptDelayMs: number,
): Promise<RecordedDelivery[]> {
  if (changes.length === 0) return [];
  const accounts = [...new Set(changes.map((change) => change.accountId))];
  const subscribers = await tx.$queryRaw<Subscriber[]>`
    SELECT id, account_id AS "accountId", events,
           -- rounded as the stored timestamps are, so that messages and reads agree
           now()::timestamptz(3) AS at
    FROM webhook_endpoints
    WHERE account_id = ANY(${accounts}::uuid[]) AND enabled`;
  if (subscribers.length === 0) return [];
  const heard = changes.flatMap((change) => {
    const endpoints = subscribers.filter(
      (s) => s.accountId === change.accountId && s.events.includes(change.type),
    );
    return endpoints.length === 0 ? [] : [{ change, endpoints }];
  });
  if (heard.length === 0) return [];

  const names = await readNames(
    tx,
    heard.map(({ change }) => change),
  );
  const at = subscribers[0]?.at ?? new Date();
  const messages = heard.map(({ change, endpoints }) => ({
    id: uuidv7(),
    accountId: change.accountId,
    eventId: change.eventId,
    type: change.type,
    body: JSON.stringify({
      type: change.type,
      timestamp: at.toISOString(),
      data: change.dataOf(names, at),
    }),
    endpoints,
  }));
  const deliveries = messages.flatMap((message) =>
    message.endpoints.map((endpoint) => ({
      id: uuidv7(),
      messageId: message.id,
      endpointId: endpoint.id,
      eventId: message.eventId,
    })),
  );
  const column = <Row, Key extends keyof Row>(rows: Row[], key: Key) => rows.map((row) => row[key]);
  await tx.$executeRaw`
    INSERT INTO webhook_messages (id, account_id, event_id, type, body, created_at)
    SELECT m.id, m.account_id, m.event_id, m.type, m.body, now()
    FROM unnest(${column(messages, 'id')}::uuid[], ${column(messages, 'accountId')}::uuid[],
                ${column(messages, 'eventId')}::uuid[], ${column(messages, 'type')}::text[],
                ${column(messages, 'body')}::text[]) AS m(id, account_id, event_id, type, body)`;
  await tx.$executeRaw`
    INSERT INTO webhook_deliveries (id, message_id, endpoint_id, next_attempt_at, created_at)
    SELECT d.id, d.message_id, d.endpoint_id,
           now() + make_interval(secs => ${firstAttemptDelayMs / 1000}::float8), now()
    FROM unnest(${column(deliveries, 'id')}::uuid[], ${column(deliveries, 'messageId')}::uuid[],
                ${column(deliveries, 'endpointId')}::uuid[]) AS d(id, message_id, endpoint_id)`;
  return deliveries.map(({ id, eventId }) => ({ deliveryId: id, eventId }));
}

/** The authors' and categories' names the messages show, in one statement. */
async function readNames(tx: Tx, changes: OutboxEntry[]): Promise<Names> {
  const accounts = [...new Set(changes.map((change) => change.accountId))];
  const categories = [...new Set(changes.flatMap((change) => change.categoryIds))];
  const rows = await tx.$queryRaw<Array<{ id: string; name: string; handle: string | null }>>`
    SELECT id, name, handle FROM accounts WHERE id = ANY(${accounts}::uuid[])
    UNION ALL
    SELECT id, name, NULL FROM categories WHERE id = ANY(${categories}::uuid[])`;
  const names: Names = { authors: new Map(), categories: new Map() };
  for (const { id, name, handle } of rows) {
    if (handle === null) names.categories.set(id, name);
    else names.authors.set(id, { handle, name });
  }
  return names;
}
