import type { Endpoint } from '@ingest/contracts';
import type { WebhookEndpoint } from '@ingest/db';

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
  createdAt: endpoint.createdAt.toISOString(),
  updatedAt: endpoint.updatedAt.toISOString(),
});
