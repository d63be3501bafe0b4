import {
  AppError,
  BULK_RESEND_MAX,
  ENDPOINT_STATS_HOURS,
  type AdminDelivery,
  type AdminDeliveryQuery,
  type AdminEndpoint,
  type AdminEndpointQuery,
  type DeliveryResendRequest,
  type DeliveryResendResult,
} from '@ingest/contracts';
import { Prisma, type WebhookEndpoint } from '@ingest/db';
import { v7 as uuidv7 } from 'uuid';
import type { ApiDeps } from '../../deps.js';
import { presentEndpoint } from '../present-endpoint.js';
import { inOneSnapshot } from '../one-snapshot.js';
import { rowsAfter, toPage } from '../pagination.js';
import { presentDelivery, type DeliveryRow } from '../present-delivery.js';
import { DELIVERY_FIELDS, deliverAgain, queueDeliveries } from '../webhook-deliveries.js';
import { accountByRef, accountCondition } from './account-ref.js';

type Deps = Pick<ApiDeps, 'db' | 'config' | 'deliveryQueue' | 'logger'>;

const STATE_FILTERS = {
  enabled: { enabled: true, pausedAt: null, failingSince: null },
  failing: { enabled: true, pausedAt: null, failingSince: { not: null } },
  paused: { enabled: true, pausedAt: { not: null } },
  disabled: { enabled: false },
} as const satisfies Record<AdminEndpoint['state'], Prisma.WebhookEndpointWhereInput>;

/** The endpoints of the account an operator names, by its id or its handle. */
const endpointsOf = (account: string): Prisma.WebhookEndpointWhereInput => ({
  account: accountByRef(account),
});

interface EndpointFigures {
  endpointId: string;
  succeeded: number;
  failed: number;
  pending: number;
  lastErrorId: string | null;
  lastErrorAt: Date | null;
  lastErrorStatus: number | null;
  lastError: string | null;
}

/**
 * Each endpoint's deliveries of the last ENDPOINT_STATS_HOURS, counted by status, and its
 * newest failed attempt among them: one statement for a page, each endpoint read through
 * its (endpoint, created_at) index, within the window only.
 */
async function figuresOf(
  db: Prisma.TransactionClient,
  endpointIds: string[],
): Promise<Map<string, EndpointFigures>> {
  const rows = await db.$queryRaw<EndpointFigures[]>`
    SELECT e.id AS "endpointId",
           COALESCE(c.succeeded, 0)::int AS succeeded, COALESCE(c.failed, 0)::int AS failed,
           COALESCE(c.pending, 0)::int AS pending,
           l.id AS "lastErrorId", l.at AS "lastErrorAt", l.response_status AS "lastErrorStatus",
           l.error AS "lastError"
    FROM unnest(${endpointIds}::uuid[]) AS e(id)
    LEFT JOIN LATERAL (
      SELECT count(*) FILTER (WHERE status = 'succeeded') AS succeeded,
             count(*) FILTER (WHERE status = 'failed') AS failed,
             count(*) FILTER (WHERE status = 'pending') AS pending
      FROM webhook_deliveries
      WHERE endpoint_id = e.id AND created_at > now() - make_interval(hours => ${ENDPOINT_STATS_HOURS})
    ) c ON true
    LEFT JOIN LATERAL (
      SELECT id, COALESCE(finished_at, created_at) AS at, response_status, error
      FROM webhook_deliveries
      WHERE endpoint_id = e.id AND error IS NOT NULL
        AND created_at > now() - make_interval(hours => ${ENDPOINT_STATS_HOURS})
      ORDER BY created_at DESC LIMIT 1
    ) l ON true`;
  return new Map(rows.map((row) => [row.endpointId, row]));
}

function presentAdminEndpoint(
  endpoint: WebhookEndpoint & { account: { id: string; handle: string } },
  figures: EndpointFigures | undefined,
): AdminEndpoint {
  const { succeeded = 0, failed = 0, pending = 0 } = figures ?? {};
  const lastError =
    figures?.lastErrorId != null && figures.lastErrorAt !== null && figures.lastError !== null
      ? {
          deliveryId: figures.lastErrorId,
          at: figures.lastErrorAt.toISOString(),
          responseStatus: figures.lastErrorStatus,
          error: figures.lastError,
        }
      : null;
  return {
    ...presentEndpoint(endpoint),
    account: endpoint.account,
    lastDay: {
      succeeded,
      failed,
      pending,
      successRate: succeeded + failed === 0 ? null : succeeded / (succeeded + failed),
    },
    lastError,
  };
}

/** Every account's endpoints, newest first, with how their deliveries went lately. */
export async function listAllEndpoints(deps: Deps, query: AdminEndpointQuery) {
  const { rows, figures } = await inOneSnapshot(deps, async (tx) => {
    const rows = await tx.webhookEndpoint.findMany({
      where: {
        ...(query.state === undefined ? {} : STATE_FILTERS[query.state]),
        ...(query.accountId === undefined ? {} : endpointsOf(query.accountId)),
        ...rowsAfter(query.cursor, 'createdAt'),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: query.limit + 1,
      include: { account: { select: { id: true, handle: true } } },
    });
    const ids = rows.slice(0, query.limit).map((row) => row.id);
    return { rows, figures: await figuresOf(tx, ids) };
  });
  return toPage(
    rows,
    query.limit,
    (row) => row.createdAt,
    (row) => presentAdminEndpoint(row, figures.get(row.id)),
  );
}

const ADMIN_DELIVERY_FIELDS = {
  ...DELIVERY_FIELDS,
  message: {
    select: { type: true, accountId: true, eventId: true, account: { select: { handle: true } } },
  },
} as const satisfies Prisma.WebhookDeliverySelect;

type AdminDeliveryRow = DeliveryRow & {
  message: { accountId: string; eventId: string | null; account: { handle: string } };
};

const presentAdminDelivery = (row: AdminDeliveryRow): AdminDelivery => ({
  ...presentDelivery(row),
  accountId: row.message.accountId,
  accountHandle: row.message.account.handle,
  eventId: row.message.eventId,
});

type DeliveryFilters = Pick<AdminDeliveryQuery, 'endpointId' | 'accountId' | 'type' | 'eventId'>;

const whereDeliveries = (filters: DeliveryFilters): Prisma.WebhookDeliveryWhereInput => ({
  ...(filters.endpointId === undefined ? {} : { endpointId: filters.endpointId }),
  // Through the endpoint: an account has few, each read through its deliveries' index.
  ...(filters.accountId === undefined ? {} : { endpoint: endpointsOf(filters.accountId) }),
  ...(filters.type === undefined && filters.eventId === undefined
    ? {}
    : {
        message: {
          ...(filters.type === undefined ? {} : { type: filters.type }),
          ...(filters.eventId === undefined ? {} : { eventId: filters.eventId }),
        },
      }),
});

/** Deliveries of every account, newest first, by endpoint, account, type, event or status. */
export async function searchDeliveries(deps: Deps, query: AdminDeliveryQuery) {
  const rows: AdminDeliveryRow[] = await inOneSnapshot(deps, (tx) =>
    tx.webhookDelivery.findMany({
      where: {
        ...whereDeliveries(query),
        ...(query.status === undefined ? {} : { status: query.status }),
        ...rowsAfter(query.cursor, 'createdAt'),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: query.limit + 1,
      select: ADMIN_DELIVERY_FIELDS,
    }),
  );
  return toPage(rows, query.limit, (row) => row.createdAt, presentAdminDelivery);
}

/** Delivers a delivery's message to its endpoint again, whatever became of it. */
export async function resendDelivery(deps: Deps, deliveryId: string): Promise<AdminDelivery> {
  const previous = await deps.db.prisma.webhookDelivery.findUnique({
    where: { id: deliveryId },
    select: {
      messageId: true,
      endpointId: true,
      message: { select: { account: { select: { handle: true } } } },
    },
  });
  if (previous === null) throw new AppError('NOT_FOUND', 'No delivery with this id');
  const again = await deliverAgain(deps, previous, ADMIN_DELIVERY_FIELDS);
  // The message's account, read with the delivery it came from: deliverAgain's type does
  // not carry a relation selected under another.
  const { account } = previous.message;
  return presentAdminDelivery({ ...again, message: { ...again.message, account } });
}

/**
 * Delivers again every message whose delivery to an enabled endpoint failed, once per
 * message and endpoint, unless it has been delivered since or a delivery of it is still
 * pending (an earlier resend): calling this twice resends nothing twice. At most
 * BULK_RESEND_MAX at a time; `more` says whether any are left.
 */
export async function resendFailed(
  deps: Deps,
  request: DeliveryResendRequest,
): Promise<DeliveryResendResult> {
  const filters = [
    request.endpointId === undefined
      ? null
      : Prisma.sql`d.endpoint_id = ${request.endpointId}::uuid`,
    request.accountId === undefined
      ? null
      : accountCondition(request.accountId, Prisma.sql`e.account_id`),
    request.type === undefined ? null : Prisma.sql`m.type = ${request.type}`,
    request.eventId === undefined ? null : Prisma.sql`m.event_id = ${request.eventId}::uuid`,
  ].filter((filter) => filter !== null);
  const matching = await deps.db.prisma.$queryRaw<Array<{ messageId: string; endpointId: string }>>`
    SELECT DISTINCT d.message_id AS "messageId", d.endpoint_id AS "endpointId"
    FROM webhook_deliveries d
    JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.enabled
    JOIN webhook_messages m ON m.id = d.message_id
    WHERE d.status = 'failed' ${filters.length === 0 ? Prisma.empty : Prisma.sql`AND ${Prisma.join(filters, ' AND ')}`}
      AND NOT EXISTS (
        SELECT 1 FROM webhook_deliveries o
        WHERE o.message_id = d.message_id AND o.endpoint_id = d.endpoint_id
          AND o.status IN ('pending', 'held', 'succeeded'))
    LIMIT ${BULK_RESEND_MAX + 1}`;
  const pairs = matching.slice(0, BULK_RESEND_MAX);
  const created = await deps.db.prisma.$queryRaw<Array<{ id: string }>>`
    INSERT INTO webhook_deliveries (id, message_id, endpoint_id, next_attempt_at)
    SELECT p.id, p.message_id, p.endpoint_id, now()
    FROM unnest(${pairs.map(() => uuidv7())}::uuid[], ${pairs.map((p) => p.messageId)}::uuid[],
                ${pairs.map((p) => p.endpointId)}::uuid[]) AS p(id, message_id, endpoint_id)
    -- Checked again as it is written: another resend may have come first.
    WHERE NOT EXISTS (
      SELECT 1 FROM webhook_deliveries o
      WHERE o.message_id = p.message_id AND o.endpoint_id = p.endpoint_id
        AND o.status IN ('pending', 'held', 'succeeded'))
    RETURNING id`;
  await queueDeliveries(
    deps,
    created.map(({ id }) => id),
  );
  return { resent: created.length, more: matching.length > BULK_RESEND_MAX };
}
