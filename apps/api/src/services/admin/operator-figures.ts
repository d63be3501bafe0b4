import { ENDPOINT_STATES, type AdminEndpoint } from '@ingest/contracts';
import { readBacklog } from '@ingest/event-log';
import type pg from 'pg';

/** Accounts and endpoints named one by one in /metrics at most: a label per tenant costs. */
export const NAMED_AT_MOST = 20;

export interface OperatorFigures {
  endpoints: Record<AdminEndpoint['state'], number>;
  /** The endpoints failing longest, with their account's handle. */
  failing: Array<{ endpointId: string; account: string; failingSinceMs: number }>;
  /** The accounts with the most queued events, with their oldest queued event's time. */
  backlogs: Array<{ account: string; queued: number; oldestQueuedAtMs: number | null }>;
}

async function endpointFigures(pool: pg.Pool) {
  const [counts, failing] = await Promise.all([
    pool.query<{ state: AdminEndpoint['state']; endpoints: number }>({
      name: 'metrics-endpoint-states',
      text: `SELECT CASE WHEN NOT enabled THEN 'disabled' WHEN paused_at IS NOT NULL THEN 'paused'
                         WHEN failing_since IS NULL THEN 'enabled' ELSE 'failing' END AS state,
                    count(*)::int AS endpoints
             FROM webhook_endpoints GROUP BY 1`,
    }),
    pool.query<{ id: string; handle: string; since: Date }>({
      name: 'metrics-failing-endpoints',
      text: `SELECT e.id, a.handle, e.failing_since AS since
             FROM webhook_endpoints e JOIN accounts a ON a.id = e.account_id
             WHERE e.enabled AND e.paused_at IS NULL AND e.failing_since IS NOT NULL
             ORDER BY e.failing_since LIMIT $1`,
      values: [NAMED_AT_MOST],
    }),
  ]);
  const endpoints = Object.fromEntries(ENDPOINT_STATES.map((state) => [state, 0])) as Record<
    AdminEndpoint['state'],
    number
  >;
  for (const row of counts.rows) endpoints[row.state] = row.endpoints;
  return {
    endpoints,
    failing: failing.rows.map((row) => ({
      endpointId: row.id,
      account: row.handle,
      failingSinceMs: row.since.getTime(),
    })),
  };
}

async function accountBacklogs(pool: pg.Pool): Promise<OperatorFigures['backlogs']> {
  const { accounts } = await readBacklog(pool);
  const largest = accounts
    .filter((account) => account.queued > 0)
    .sort((a, b) => b.queued - a.queued)
    .slice(0, NAMED_AT_MOST);
  if (largest.length === 0) return [];
  const { rows } = await pool.query<{ id: string; handle: string }>({
    name: 'metrics-account-handles',
    text: `SELECT id, handle FROM accounts WHERE id = ANY($1::uuid[])`,
    values: [largest.map((account) => account.accountId)],
  });
  const handles = new Map(rows.map((row) => [row.id, row.handle]));
  return largest.map((account) => ({
    account: handles.get(account.accountId) ?? account.accountId,
    queued: account.queued,
    oldestQueuedAtMs: account.oldestQueuedAt?.getTime() ?? null,
  }));
}

/** What /metrics names per endpoint and per account, read from PostgreSQL at a scrape. */
export async function operatorFigures(pool: pg.Pool): Promise<OperatorFigures> {
  const [endpoints, backlogs] = await Promise.all([endpointFigures(pool), accountBacklogs(pool)]);
  return { ...endpoints, backlogs };
}
