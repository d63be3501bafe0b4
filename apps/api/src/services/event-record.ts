import type { AppError, EventName } from '@ingest/contracts';
import { Prisma } from '@ingest/db';
import type { ApiDeps } from '../deps.js';
import { recordableEventName, recordablePayload } from './recordable-payload.js';

type Deps = Pick<ApiDeps, 'db'>;
export type Tx = Prisma.TransactionClient;

export interface AcceptedRecord {
  id: string;
  accountId: string;
  apiKeyId: string;
  event: EventName;
  payload: unknown;
  requestId: string;
  orderKeys: string[];
  notifyOnFinish: boolean;
}

/** Writes an accepted event's WebhookLog row (status `queued`); returns when it was received. */
export async function recordAccepted(
  db: Deps['db'] | { prisma: Tx },
  record: AcceptedRecord,
): Promise<Date> {
  const { receivedAt } = await db.prisma.webhookLog.create({
    data: { ...record, payload: record.payload as Prisma.InputJsonValue, status: 'queued' },
    select: { receivedAt: true },
  });
  return receivedAt;
}

/**
 * The ingest hot path's INSERT: many accepted events in one statement, one array per
 * column. Raw SQL because Prisma's `createMany` cannot return the rows' receive time,
 * and its per-query overhead was the largest item in the API's CPU profile. `sequence`
 * (the order events of a slug are applied in) follows the order of `records`. A named
 * statement is parsed and planned once per connection.
 */
const INSERT_ACCEPTED = `
  INSERT INTO webhook_logs
    (id, account_id, api_key_id, event, payload, request_id, status, order_keys, notify_on_finish)
  SELECT r.id, r.account_id, r.api_key_id, r.event, r.payload, r.request_id, 'queued',
         ARRAY(SELECT jsonb_array_elements_text(r.order_keys)), r.notify_on_finish
  FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::jsonb[], $6::text[],
              $7::jsonb[], $8::boolean[])
       WITH ORDINALITY AS r(id, account_id, api_key_id, event, payload, request_id,
                            order_keys, notify_on_finish, position)
  ORDER BY r.position
  RETURNING received_at`;

/** Writes accepted events' rows in one statement; returns when they were received. */
export async function insertAcceptedEvents(
  pool: Pick<Deps['db']['pool'], 'query'>,
  records: AcceptedRecord[],
): Promise<Date> {
  const result = await pool.query<{ received_at: Date }>({
    name: 'insert-accepted-events',
    text: INSERT_ACCEPTED,
    values: [
      records.map((record) => record.id),
      records.map((record) => record.accountId),
      records.map((record) => record.apiKeyId),
      records.map((record) => record.event),
      records.map((record) => JSON.stringify(record.payload)),
      records.map((record) => record.requestId),
      records.map((record) => JSON.stringify(record.orderKeys)),
      records.map((record) => record.notifyOnFinish),
    ],
  });
  const first = result.rows[0];
  if (first === undefined || result.rowCount !== records.length)
    throw new Error(`inserted ${result.rowCount ?? 0} of ${records.length} accepted events`);
  // One statement, one transaction: every row got the same now().
  return first.received_at;
}

// A body of `null` (or none) is recorded as JSON null, which Prisma spells JsonNull.
const jsonOrJsonNull = (value: unknown) =>
  value === null || value === undefined ? Prisma.JsonNull : (value as Prisma.InputJsonValue);

/** Writes a rejected call's WebhookLog row, finished at once, with what was sent and why. */
export async function recordRejected(
  deps: Deps,
  record: {
    id: string;
    accountId: string;
    apiKeyId: string;
    requestId: string;
    eventField: unknown;
    body: unknown;
  },
  error: AppError,
): Promise<void> {
  await deps.db.prisma.webhookLog.create({
    data: {
      id: record.id,
      accountId: record.accountId,
      apiKeyId: record.apiKeyId,
      event: recordableEventName(record.eventField),
      payload: jsonOrJsonNull(recordablePayload(record.body)),
      requestId: record.requestId,
      status: 'rejected',
      orderKeys: [],
      finishedAt: new Date(),
      // The message and field paths may quote what was sent (an unknown field's name):
      // cleaned like the payload, or PostgreSQL would refuse the row.
      error: recordablePayload({
        code: error.code,
        message: error.message,
        ...(error.errors ? { errors: error.errors } : {}),
      }) as Prisma.InputJsonValue,
    },
    select: { id: true },
  });
}
