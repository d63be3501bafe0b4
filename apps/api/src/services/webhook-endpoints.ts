import {
  checkFilter,
  SUBSCRIBABLE_MESSAGE_TYPES,
  type EndpointCreateRequest,
  type EndpointUpdateRequest,
  type MessageFilter,
} from '@ingest/events';
import { AppError, HOUR_MS } from '@ingest/contracts';
import { Prisma, type WebhookEndpoint } from '@ingest/db';
import { generateSigningSecret, rotateSecret } from '@ingest/signatures';
import { checkEndpointUrl, targetPolicyOf } from '@ingest/webhook-delivery';
import { v7 as uuidv7 } from 'uuid';
import type { ApiDeps } from '../deps.js';
import { holdWithinQuota } from './account-quota.js';

type Deps = Pick<ApiDeps, 'db' | 'config'>;

/** The URL as it will be called; 400 naming `url` when the target policy refuses it. */
function acceptedUrl(deps: Deps, raw: string): string {
  const check = checkEndpointUrl(raw, targetPolicyOf(deps.config.webhooks));
  if (!check.ok) {
    throw new AppError('VALIDATION_FAILED', `The url ${check.reason}`, {
      errors: [{ path: 'url', message: check.reason }],
    });
  }
  return check.url.href;
}

/** A filter that names only fields its message types have; 400 naming the first that does not. */
function checkedFilter(filter: MessageFilter, events: readonly string[]): MessageFilter {
  const problems = checkFilter(filter, events);
  if (problems.length > 0) {
    const errors = problems.map((p) => ({ path: `filter.${p.path}`, message: p.message }));
    throw new AppError(
      'VALIDATION_FAILED',
      `The filter has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}`,
      { errors },
    );
  }
  return filter;
}

/** The columns a request's `filter` and `rate` set; absent ones are left as they are. */
function deliveryColumns(
  input: Pick<EndpointCreateRequest, 'filter' | 'rate'>,
  events: readonly string[],
  currentFilter: MessageFilter | null,
) {
  const filter = input.filter === undefined ? currentFilter : input.filter;
  return {
    ...(filter === null
      ? input.filter === null
        ? { filter: Prisma.DbNull }
        : {}
      : { filter: checkedFilter(filter, events) as Prisma.InputJsonValue }),
    ...(input.rate === undefined
      ? {}
      : {
          ratePerSecond: input.rate?.perSecond ?? null,
          maxInFlight: input.rate?.inFlight ?? null,
        }),
  };
}

/**
 * Registers an endpoint and returns it with its signing secret, which is stored (deliveries
 * are signed with it) and never shown again.
 */
export async function createEndpoint(
  deps: Deps,
  accountId: string,
  input: EndpointCreateRequest,
): Promise<WebhookEndpoint> {
  const url = acceptedUrl(deps, input.url);
  const events = input.events ?? [...SUBSCRIBABLE_MESSAGE_TYPES];
  const delivery = deliveryColumns(input, events, null);
  return deps.db.prisma.$transaction(async (tx) => {
    const quota = deps.config.webhooks.endpointQuota;
    await holdWithinQuota(
      tx,
      accountId,
      quota,
      () => tx.webhookEndpoint.count({ where: { accountId } }),
      () =>
        new AppError(
          'ENDPOINT_QUOTA_EXCEEDED',
          `An account may hold ${quota} webhook endpoints; delete one before creating another`,
        ),
    );
    return tx.webhookEndpoint.create({
      data: {
        id: uuidv7(),
        accountId,
        url,
        description: input.description ?? null,
        events,
        secret: generateSigningSecret(),
        ...delivery,
      },
    });
  });
}

export const listEndpoints = (deps: Deps, accountId: string): Promise<WebhookEndpoint[]> =>
  deps.db.prisma.webhookEndpoint.findMany({
    where: { accountId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });

/** One of the account's endpoints; another account's is answered exactly like a missing one. */
export async function getEndpoint(
  deps: Deps,
  accountId: string,
  id: string,
): Promise<WebhookEndpoint> {
  const endpoint = await deps.db.prisma.webhookEndpoint.findFirst({ where: { id, accountId } });
  if (endpoint === null) throw new AppError('NOT_FOUND', 'No webhook endpoint with this id');
  return endpoint;
}

/**
 * Changes what was sent. Enabling an endpoint the service disabled clears the reason and
 * the failure streak: its owner says the receiver is back.
 */
export async function updateEndpoint(
  deps: Deps,
  accountId: string,
  id: string,
  input: EndpointUpdateRequest,
): Promise<WebhookEndpoint> {
  const current = await getEndpoint(deps, accountId, id);
  const url = input.url === undefined ? undefined : acceptedUrl(deps, input.url);
  const delivery = deliveryColumns(
    input,
    input.events ?? current.events,
    current.filter as MessageFilter | null,
  );
  const toggled =
    input.enabled === undefined
      ? {}
      : { enabled: input.enabled, disabledReason: null, disabledAt: null, failingSince: null };
  return deps.db.prisma.webhookEndpoint.update({
    where: { id },
    data: {
      ...(url === undefined ? {} : { url }),
      ...(input.events === undefined ? {} : { events: input.events }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...delivery,
      ...toggled,
    },
  });
}

/**
 * Gives the endpoint a new secret. Deliveries carry signatures by both for
 * SIGNING_SECRET_OVERLAP_HOURS (Standard Webhooks sends several, space-separated), so a
 * receiver can switch without refusing one.
 */
export async function rotateEndpointSecret(
  deps: Deps,
  accountId: string,
  id: string,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const current = await getEndpoint(deps, accountId, id);
  const rotated = rotateSecret(
    current.secret,
    deps.config.auth.signingSecretOverlapHours * HOUR_MS,
  );
  const endpoint = await deps.db.prisma.webhookEndpoint.update({ where: { id }, data: rotated });
  return { endpoint, secret: rotated.secret };
}

/** Deletes one of the account's endpoints; nothing is delivered to it any more. */
export async function deleteEndpoint(deps: Deps, accountId: string, id: string): Promise<void> {
  const { count } = await deps.db.prisma.webhookEndpoint.deleteMany({ where: { id, accountId } });
  if (count === 0) throw new AppError('NOT_FOUND', 'No webhook endpoint with this id');
}
