// The account-erasure scenario's companion: a second account publishes a busy stream, and
// an operator erases it half-way, while the run's own account keeps publishing and the
// workers are killed in turn. Once everything has drained, the erasure must have finished
// and left nothing of the account in the tables that name it; the run's own account is
// judged by the usual checks (each accepted event applied exactly once).
import {
  createPublisher,
  fetchClient,
  newAccountFields,
  registerAccount,
} from '@ingest/test-harness';
import { startLoad } from './load-generator.js';
import { planFlood } from './noisy-workload.js';
import type { Companion, CompanionSetup, CompanionVerdict, FaultContext } from './scenarios.js';

const EVENTS = { quick: 1_500, full: 4_000 };
const IN_FLIGHT = 32;
/** The share of its stream published before the operator erases it. */
const ERASED_AT = 0.4;
const FINISH_TIMEOUT_MS = 120_000;
/** Every table with an account_id column: none may name the erased account afterwards. */
const TABLES = [
  'accounts',
  'api_keys',
  'articles',
  'highlights',
  'webhook_logs',
  'webhook_endpoints',
  'webhook_messages',
  'idempotency_keys',
  'pending_order_keys',
  'account_share_changes',
];

export async function startErasedNeighbour(setup: CompanionSetup): Promise<Companion> {
  const { cluster, log, mode } = setup;
  const client = fetchClient(cluster.baseUrl);
  const leaving = await createPublisher(
    client,
    newAccountFields(`${setup.tag}.faults.test`, 'leaving'),
    2,
  );
  const operator = await registerAccount(
    client,
    newAccountFields(`${setup.tag}.faults.test`, 'operator'),
  );
  await cluster.db.query(`UPDATE accounts SET role = 'admin' WHERE id = $1`, [operator.id]);
  const operatorCall = (method: string, path: string) =>
    fetch(`${cluster.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${operator.token}` },
    });

  const scripts = planFlood({
    tag: `${setup.tag}-leaving`,
    events: EVENTS[mode],
    apiKeys: leaving.apiKeys.length,
    seed: setup.seed,
  });
  const stream = startLoad({
    baseUrls: cluster.baseUrls,
    apiKeys: leaving.apiKeys,
    scripts,
    concurrency: IN_FLIGHT,
    eventsPerSecond: Number.POSITIVE_INFINITY,
    retryBudgetMs: 30_000,
    maxLoadMs: 60_000,
    minEvents: 0,
    inFlightPerSlug: 1,
    burst: 1,
  });
  stream.done.catch(() => {});
  let erasureId: string | undefined;

  async function alongside(context: FaultContext): Promise<void> {
    await stream.whenProgress(ERASED_AT);
    const answer = await operatorCall('DELETE', `/api/admin/accounts/${leaving.id}`);
    const body = (await answer.json()) as { id?: string; detail?: string };
    erasureId = body.id;
    context.log(
      `erasing the busy account (${answer.status}, ${erasureId === undefined ? body.detail : `erasure ${erasureId}`}) after ${stream.sentCount()} of its events`,
    );
    const { sent } = await stream.done;
    context.log(
      `its stream ended: ${sent.filter((event) => event.accepted).length} of ${sent.length} events accepted`,
    );
  }

  async function judge(): Promise<CompanionVerdict> {
    const problems: string[] = [];
    await stream.done.catch(() => undefined);
    let finishedAt: string | null = null;
    const deadline = Date.now() + FINISH_TIMEOUT_MS;
    while (erasureId !== undefined && finishedAt === null && Date.now() < deadline) {
      const answer = await operatorCall('GET', `/api/admin/erasures/${erasureId}`);
      if (answer.ok) ({ finishedAt } = (await answer.json()) as { finishedAt: string | null });
      if (finishedAt === null) await new Promise((done) => setTimeout(done, 500));
    }
    if (erasureId === undefined) problems.push('the erasure did not start');
    else if (finishedAt === null)
      problems.push(`the erasure had not finished after ${FINISH_TIMEOUT_MS} ms`);
    const left: string[] = [];
    for (const table of TABLES) {
      const column = table === 'accounts' ? 'id' : 'account_id';
      const { rows } = await cluster.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`,
        [leaving.id],
      );
      if ((rows[0]?.n ?? 0) > 0) left.push(`${table}: ${rows[0]?.n}`);
    }
    if (left.length > 0) problems.push(`rows of the erased account remain: ${left.join(', ')}`);
    const summary = `erased account: ${finishedAt === null ? 'not finished' : 'finished'}, ${left.length === 0 ? 'no row left' : `${left.length} tables still name it`}`;
    return {
      problems,
      summary,
      details: [
        '| Erasure | Finished | Tables still naming the account |',
        '| --- | --- | --- |',
        `| ${erasureId ?? '-'} | ${finishedAt ?? 'no'} | ${left.length === 0 ? 'none' : left.join(', ')} |`,
      ],
    };
  }

  log(`  busy account to be erased: ${scripts.length} slugs`);
  return { alongside, beforeKill: async () => '', judge, close: async () => {} };
}
