// Webhook endpoints for the bench's accounts, made and deleted over the API with each
// account's bearer token, as an account owner would: the API checks each URL against the
// target policy, as it would a subscriber's.
import { bearer, fetchClient } from '@ingest/test-harness';
import type { BenchAccount } from '../bench-environment.js';

export interface BenchEndpoint {
  id: string;
  account: BenchAccount;
}

/** A filter as the API takes it (`filter` of an endpoint; @ingest/events, message-filter.ts). */
export type EndpointFilter = Record<string, unknown>;

/**
 * `perAccount` endpoints for every account, each at its own path of `urlOf`, subscribed
 * to every outgoing event type (none named: all of them), with `filter` if given.
 */
export async function addEndpoints(
  baseUrl: string,
  accounts: BenchAccount[],
  perAccount: number,
  urlOf: (path: string) => string,
  filter?: EndpointFilter,
): Promise<BenchEndpoint[]> {
  const client = fetchClient(baseUrl);
  const made = accounts.flatMap((account, a) =>
    Array.from({ length: perAccount }, async (_, e): Promise<BenchEndpoint> => {
      const response = await client({
        method: 'POST',
        path: '/api/webhooks/endpoints',
        headers: bearer(account.token),
        body: {
          url: urlOf(`/hooks/${a}/${e}`),
          description: `bench receiver ${e}`,
          ...(filter === undefined ? {} : { filter }),
        },
      });
      if (response.status !== 201) {
        throw new Error(`creating an endpoint: ${response.status} ${response.text.slice(0, 300)}`);
      }
      return { id: (JSON.parse(response.text) as { id: string }).id, account };
    }),
  );
  return Promise.all(made);
}

/** Takes every endpoint's filter away: from then on it hears every message of its types. */
export async function unfilterEndpoints(
  baseUrl: string,
  endpoints: BenchEndpoint[],
): Promise<void> {
  const client = fetchClient(baseUrl);
  await Promise.all(
    endpoints.map(async ({ id, account }) => {
      const response = await client({
        method: 'PATCH',
        path: `/api/webhooks/endpoints/${id}`,
        headers: bearer(account.token),
        body: { filter: null },
      });
      if (response.status !== 200) {
        throw new Error(
          `unfiltering endpoint ${id}: ${response.status} ${response.text.slice(0, 300)}`,
        );
      }
    }),
  );
}

export async function deleteEndpoints(baseUrl: string, endpoints: BenchEndpoint[]): Promise<void> {
  const client = fetchClient(baseUrl);
  await Promise.all(
    endpoints.map(async ({ id, account }) => {
      const response = await client({
        method: 'DELETE',
        path: `/api/webhooks/endpoints/${id}`,
        headers: bearer(account.token),
      });
      if (response.status !== 204) {
        throw new Error(
          `deleting endpoint ${id}: ${response.status} ${response.text.slice(0, 300)}`,
        );
      }
    }),
  );
}
