import type { Endpoint, EndpointState } from '@ingest/contracts';
import type { WebhookEndpoint } from '@ingest/db';

export function endpointStateOf(
  endpoint: Pick<WebhookEndpoint, 'enabled' | 'pausedAt' | 'failingSince'>,
): EndpointState {
  if (!endpoint.enabled) return 'disabled';
  if (endpoint.pausedAt !== null) return 'paused';
  return endpoint.failingSince === null ? 'enabled' : 'failing';
}

/** An endpoint as its owner reads it: never its secrets, which are shown once. */
export const presentEndpoint = (endpoint: WebhookEndpoint): Endpoint => ({
  id: endpoint.id,
  url: endpoint.url,
  events: endpoint.events,
  description: endpoint.description,
  enabled: endpoint.enabled,
  disabledReason: endpoint.disabledReason,
  disabledAt: endpoint.disabledAt?.toISOString() ?? null,
  failingSince: endpoint.failingSince?.toISOString() ?? null,
  state: endpointStateOf(endpoint),
  pausedAt: endpoint.pausedAt?.toISOString() ?? null,
  pausedReason: endpoint.pausedReason,
  filter: (endpoint.filter ?? null) as Record<string, unknown> | null,
  rate:
    endpoint.ratePerSecond === null && endpoint.maxInFlight === null
      ? null
      : { perSecond: endpoint.ratePerSecond, inFlight: endpoint.maxInFlight },
  createdAt: endpoint.createdAt.toISOString(),
  updatedAt: endpoint.updatedAt.toISOString(),
});
