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
