import type { Database } from '@ingest/db';
import type { EndpointLimits } from '@ingest/webhook-delivery';

export interface DueDelivery {
  id: string;
  status: string;
  attempts: number;
  message: { id: string; type: string; body: string };
  endpoint: {
    id: string;
    accountId: string;
    url: string;
    enabled: boolean;
    paused: boolean;
    limits: EndpointLimits;
    secret: string;
    previousSecret: string | null;
    previousSecretExpiresAt: Date | null;
  };
  /** An earlier delivery to the endpoint in one of its lines, still unfinished: it goes first. */
  behind: { dueAt: Date | null } | null;
}

/** The statement's row: the delivery's columns, then its message's and its endpoint's. */
interface DueDeliveryRow {
  id: string;
  status: string;
  attempts: number;
  messageId: string;
  type: string;
  body: string;
  endpointId: string;
  accountId: string;
  url: string;
  enabled: boolean;
  paused: boolean;
  perSecond: number | null;
  inFlight: number | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  behind: boolean;
  behindDueAt: Date | null;
}

/**
 * A delivery with its message, its endpoint and whether an earlier delivery of one of its
 * lines is unfinished, in one prepared statement: every attempt starts here, and Prisma's
 * `findUnique` with `include` would cost several.
 */
export async function dueDelivery(
  db: Database,
  deliveryId: string,
): Promise<DueDelivery | undefined> {
  const { rows } = await db.pool.query<DueDeliveryRow>({
    name: 'due-delivery',
    text: `SELECT d.id, d.status, d.attempts, m.id AS "messageId", m.type, m.body,
                  e.id AS "endpointId", e.account_id AS "accountId", e.url, e.enabled,
                  e.paused_at IS NOT NULL AS paused,
                  e.rate_per_second AS "perSecond", e.max_in_flight AS "inFlight", e.secret,
                  e.previous_secret AS "previousSecret",
                  e.previous_secret_expires_at AS "previousSecretExpiresAt",
                  b.id IS NOT NULL AS behind, b.next_attempt_at AS "behindDueAt"
           FROM webhook_deliveries d
           JOIN webhook_messages m ON m.id = d.message_id
           JOIN webhook_endpoints e ON e.id = d.endpoint_id
           LEFT JOIN LATERAL (
             SELECT p.id, p.next_attempt_at FROM webhook_deliveries p
             WHERE p.endpoint_id = d.endpoint_id AND p.status IN ('pending', 'held')
               AND p.position < d.position AND p.lines && d.lines
             ORDER BY p.position LIMIT 1
           ) b ON cardinality(d.lines) > 0
           WHERE d.id = $1::uuid`,
    values: [deliveryId],
  });
  const [row] = rows;
  if (row === undefined) return undefined;
  return {
    id: row.id,
    status: row.status,
    attempts: row.attempts,
    message: { id: row.messageId, type: row.type, body: row.body },
    endpoint: {
      id: row.endpointId,
      accountId: row.accountId,
      url: row.url,
      enabled: row.enabled,
      paused: row.paused,
      limits: { perSecond: row.perSecond, inFlight: row.inFlight },
      secret: row.secret,
      previousSecret: row.previousSecret,
      previousSecretExpiresAt: row.previousSecretExpiresAt,
    },
    behind: row.behind ? { dueAt: row.behindDueAt } : null,
  };
}
