import {
  DELIVERY_RESPONSE_SHOWN_CHARS,
  DELIVERY_STATUSES,
  webhookIdOf,
  type Delivery,
} from '@ingest/contracts';

export interface DeliveryRow {
  id: string;
  messageId: string;
  endpointId: string;
  status: string;
  attempts: number;
  nextAttemptAt: Date | null;
  responseStatus: number | null;
  latencyMs: number | null;
  responseBody: string | null;
  error: string | null;
  createdAt: Date;
  finishedAt: Date | null;
  message: { type: string };
}

const isStatus = (status: string): status is Delivery['status'] =>
  (DELIVERY_STATUSES as readonly string[]).includes(status);

export const presentDelivery = (row: DeliveryRow): Delivery => ({
  id: row.id,
  messageId: webhookIdOf(row.messageId),
  endpointId: row.endpointId,
  type: row.message.type,
  status: isStatus(row.status) ? row.status : 'failed',
  attempts: row.attempts,
  nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
  responseStatus: row.responseStatus,
  latencyMs: row.latencyMs,
  responseBody: row.responseBody?.slice(0, DELIVERY_RESPONSE_SHOWN_CHARS) ?? null,
  error: row.error,
  createdAt: row.createdAt.toISOString(),
  finishedAt: row.finishedAt?.toISOString() ?? null,
});
