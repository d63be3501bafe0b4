import {
  compileFilter,
  type MessageFilter,
  type Names,
  type OutboxEntry,
  type Tx,
} from '@ingest/events';
import { v7 as uuidv7 } from 'uuid';

interface Subscriber {
  id: string;
  accountId: string;
  events: string[];
  filter: MessageFilter | null;
}

export interface RecordedDelivery {
  deliveryId: string;
  eventId: string;
}

/**
 * The outbox of outgoing webhooks: one message for each change that an enabled endpoint of
 * its account subscribes to and whose filter passes it, and one pending delivery for each
 * such endpoint, written in the transaction that applied the changes. A change that rolls
 * back takes its message with it; a committed one cannot lose it. Each delivery carries
 * the lines (`linesOf`, by event id) of the event it tells of, which order the deliveries
 * to one endpoint. Returns the deliveries' ids, to queue once the transaction has
 * committed. An account without endpoints costs one indexed read per transaction; one
 * with endpoints, that read and the writes.
 */
export async function recordMessages(
  tx: Tx,
  changes: OutboxEntry[],
  linesOf: (eventId: string) => readonly string[],
  firstAttemptDelayMs: number,
): Promise<RecordedDelivery[]> {
  if (changes.length === 0) return [];
  const { subscribers, names, at } = await readSubscribers(tx, changes);
  if (subscribers.length === 0) return [];
  const heard = changes.flatMap((change) => {
    const endpoints = subscribers.filter(
      (s) => s.accountId === change.accountId && s.events.includes(change.type),
    );
    return endpoints.length === 0 ? [] : [{ change, endpoints }];
  });
  if (heard.length === 0) return [];

  const passes = new Map(
    subscribers.map((s) => [s.id, s.filter === null ? () => true : compileFilter(s.filter)]),
  );
  const messages = heard.flatMap(({ change, endpoints }) => {
    const body = { type: change.type, timestamp: at.toISOString(), data: change.dataOf(names, at) };
    const passed = endpoints.filter((endpoint) => passes.get(endpoint.id)?.(body) ?? true);
    if (passed.length === 0) return [];
    return [
      {
        id: uuidv7(),
        accountId: change.accountId,
        eventId: change.eventId,
        type: change.type,
        body: JSON.stringify(body),
        endpoints: passed,
      },
    ];
  });
  if (messages.length === 0) return [];
  const deliveries = messages.flatMap((message) =>
    message.endpoints.map((endpoint) => ({
      id: uuidv7(),
      messageId: message.id,
      endpointId: endpoint.id,
      eventId: message.eventId,
      lines: JSON.stringify(linesOf(message.eventId)),
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
    INSERT INTO webhook_deliveries (id, message_id, endpoint_id, lines, next_attempt_at, created_at)
    SELECT d.id, d.message_id, d.endpoint_id,
           ARRAY(SELECT jsonb_array_elements_text(d.lines)),
           now() + make_interval(secs => ${firstAttemptDelayMs / 1000}::float8), now()
    FROM unnest(${column(deliveries, 'id')}::uuid[], ${column(deliveries, 'messageId')}::uuid[],
                ${column(deliveries, 'endpointId')}::uuid[], ${column(deliveries, 'lines')}::jsonb[])
         WITH ORDINALITY AS d(id, message_id, endpoint_id, lines, n)
    ORDER BY d.n`;
  return deliveries.map(({ id, eventId }) => ({ deliveryId: id, eventId }));
}

interface SubscriberRow {
  kind: 'endpoint' | 'author' | 'category';
  id: string;
  accountId: string | null;
  events: string[] | null;
  filter: MessageFilter | null;
  name: string | null;
  handle: string | null;
  at: Date;
}

/**
 * The enabled endpoints of the changes' accounts and, when there is one, the authors' and
 * categories' names the messages show (a filter may test them): one round trip either way.
 */
async function readSubscribers(
  tx: Tx,
  changes: OutboxEntry[],
): Promise<{ subscribers: Subscriber[]; names: Names; at: Date }> {
  const accounts = [...new Set(changes.map((change) => change.accountId))];
  const categories = [...new Set(changes.flatMap((change) => change.categoryIds))];
  const rows = await tx.$queryRaw<SubscriberRow[]>`
    WITH endpoints AS MATERIALIZED (
      SELECT id, account_id, events, filter FROM webhook_endpoints
      WHERE account_id = ANY(${accounts}::uuid[]) AND enabled),
    -- rounded as the stored timestamps are, so that messages and reads agree
    clock AS (SELECT now()::timestamptz(3) AS at)
    SELECT 'endpoint' AS kind, id, account_id AS "accountId", events, filter,
           NULL AS name, NULL AS handle, clock.at
    FROM endpoints, clock
    UNION ALL
    SELECT 'author', id, NULL, NULL, NULL, name, handle, clock.at
    FROM accounts, clock
    WHERE id = ANY(${accounts}::uuid[]) AND EXISTS (SELECT 1 FROM endpoints)
    UNION ALL
    SELECT 'category', id, NULL, NULL, NULL, name, NULL, clock.at
    FROM categories, clock
    WHERE id = ANY(${categories}::uuid[]) AND EXISTS (SELECT 1 FROM endpoints)`;
  const subscribers: Subscriber[] = [];
  const names: Names = { authors: new Map(), categories: new Map() };
  for (const row of rows) {
    if (row.kind === 'endpoint')
      subscribers.push({
        id: row.id,
        accountId: row.accountId ?? '',
        events: row.events ?? [],
        filter: row.filter,
      });
    else if (row.kind === 'author')
      names.authors.set(row.id, { handle: row.handle ?? '', name: row.name ?? '' });
    else names.categories.set(row.id, row.name ?? '');
  }
  return { subscribers, names, at: rows[0]?.at ?? new Date() };
}
