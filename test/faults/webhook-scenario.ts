// The webhook-receivers scenario's companion: before the load, the account registers one
// endpoint per receiver (webhook-plans.ts: its types, a filter, a rate), and its owner
// starts watching them (endpoint-owner.ts); during the load, receivers misbehave (down,
// failing, slow past the timeout) and come back once the load and the deliveries have gone
// far enough (Phase), while the breaker pauses the endpoints that fail too long, the owner
// resumes each once its receiver is back, and workers are SIGKILLed with attempts in
// flight; once the events have drained and no delivery is pending or held, what each
// receiver got is judged against PostgreSQL and the plan (deliveries-check.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { bearer, fetchClient, type PublisherAccount } from '@ingest/test-harness';
import { checkDeliveries } from './deliveries-check.js';
import { attemptsAt, readDeliveries, waitForDeliveries } from './deliveries-queries.js';
import { selfCheckDeliveries } from './deliveries-self-check.js';
import { startOwner } from './endpoint-owner.js';
import type { EndpointRecord, RunRecord } from './endpoint-records.js';
import type { Companion, CompanionSetup, CompanionVerdict, FaultContext } from './scenarios.js';
import { detailsOf, summaryOf } from './webhook-report.js';
import {
  filterOf,
  PLANS,
  slugPrefixesOf,
  timelineText,
  type Phase,
  type ReceiverPlan,
} from './webhook-plans.js';
import {
  BREAKER_AFTER_MS,
  startReceiver,
  takesDeliveries,
  type Receiver,
} from './webhook-receivers.js';

/** Once the load is over, a receiver waits at most this long for a phase's attempts or pause. */
const PHASE_BOUND_MS = 20_000;
/** Every phase lasts at least this long, even when the next one's point is already past. */
const PHASE_MIN_MS = 3_000;
/** Before a kill: attempts held open at the receivers it waits for, and for how long at most. */
const HELD_AT_KILL = 2;
const HELD_WAIT_MS = 5_000;
// Past the last receiver's return and its resume, a delivery waits at most the schedule's
// longest wait (5 s), or its turn at the limited receiver's rate.
const DELIVERIES_TIMEOUT_MS = 45_000;
/** A worker's log line saying a job (a delivery, by its id) lost its lock. */
const LOCK_LOST = /(?:could not renew lock for job|Missing lock for job) ([0-9a-f-]{36})/;

async function registerEndpoint(
  baseUrl: string,
  account: PublisherAccount,
  receiver: Receiver,
  plan: ReceiverPlan,
  slugPrefixes: string[] | undefined,
): Promise<{ id: string; secret: string; events: string[] }> {
  const response = await fetchClient(baseUrl)({
    method: 'POST',
    path: '/api/webhooks/endpoints',
    headers: bearer(account.token),
    body: {
      url: receiver.url,
      description: `fault suite: ${timelineText(plan)}`,
      events: plan.events,
      filter: slugPrefixes === undefined ? undefined : filterOf(slugPrefixes),
      rate: plan.rate,
    },
  });
  if (response.status !== 201) {
    throw new Error(
      `registering ${receiver.url}: ${response.status} ${response.text.slice(0, 300)}`,
    );
  }
  return JSON.parse(response.text) as { id: string; secret: string; events: string[] };
}

export async function startWebhookReceivers({
  cluster,
  account,
  log,
  tag,
}: CompanionSetup): Promise<Companion> {
  const receivers: Receiver[] = [];
  const endpoints: EndpointRecord[] = [];
  const closeReceivers = async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
  };
  try {
    for (const plan of PLANS) {
      const receiver = await startReceiver(plan.name, plan.phases[0]?.behaviour ?? 'ok');
      receivers.push(receiver);
      const slugPrefixes = slugPrefixesOf(plan, tag);
      const endpoint = await registerEndpoint(
        cluster.baseUrl,
        account,
        receiver,
        plan,
        slugPrefixes,
      );
      endpoints.push({
        ...endpoint,
        name: plan.name,
        slugPrefixes,
        rate: plan.rate,
        expectPause: plan.expectPause,
        requests: receiver.requests,
      });
    }
  } catch (error) {
    await closeReceivers();
    throw error;
  }
  const watched = endpoints.map((endpoint, index) => ({
    name: endpoint.name,
    id: endpoint.id,
    takesDeliveries: () => takesDeliveries(receivers[index]?.behaviour() ?? 'refuse'),
  }));
  const owner = startOwner(cluster.baseUrl, account.token, watched, (line) => log(`  ${line}`));
  const close = async () => {
    await owner.stop();
    await closeReceivers();
  };
  log(
    `  webhook receivers: ${PLANS.map((plan) => `${plan.name} (${timelineText(plan)})`).join('; ')}; breaker after ${BREAKER_AFTER_MS} ms`,
  );

  /** Waits for the phase's point; returns the attempts its endpoint had recorded by then. */
  async function reached(phase: Phase, endpointId: string, context: FaultContext) {
    let overdue = false;
    void context
      .whenProgress(1)
      .then(() => sleep(PHASE_BOUND_MS))
      .then(() => (overdue = true));
    await Promise.all([context.whenProgress(phase.from), sleep(PHASE_MIN_MS)]);
    let attempts = await attemptsAt(cluster.db, endpointId);
    // A paused endpoint's deliveries are held: no more attempts come until it is resumed.
    const waiting = () =>
      !owner.isPaused(endpointId) &&
      (phase.afterPause === true || attempts < (phase.afterAttempts ?? 0));
    while (waiting() && !overdue) {
      await sleep(200);
      attempts = await attemptsAt(cluster.db, endpointId).catch(() => attempts);
    }
    return attempts;
  }

  async function alongside(context: FaultContext): Promise<void> {
    await Promise.all(
      PLANS.map(async (plan, index) => {
        const receiver = receivers[index];
        const endpoint = endpoints[index];
        if (receiver === undefined || endpoint === undefined) return;
        for (const phase of plan.phases.slice(1)) {
          const attempts = await reached(phase, endpoint.id, context);
          const paused = owner.isPaused(endpoint.id);
          const held = receiver.open();
          await receiver.become(phase.behaviour);
          const short = !paused && attempts < (phase.afterAttempts ?? 0) ? ' only' : '';
          context.log(
            `receiver ${plan.name} now ${phase.behaviour}, after${short} ${attempts} attempts${paused ? ', its endpoint paused' : ''} (${held} held open)`,
          );
        }
      }),
    );
  }

  /** When workers were SIGKILLed: the requests cut right then were cut by their death. */
  const kills: number[] = [];
  async function beforeKill(): Promise<string> {
    const held = () => receivers.reduce((sum, receiver) => sum + receiver.open(), 0);
    const deadline = Date.now() + HELD_WAIT_MS;
    while (held() < HELD_AT_KILL && Date.now() < deadline) await sleep(20);
    kills.push(Date.now());
    return ` (${held()} delivery attempts held open at the receivers)`;
  }

  async function judge(): Promise<CompanionVerdict> {
    const started = Date.now();
    // The owner goes on resuming meanwhile: held deliveries wait for it.
    const unfinished = await waitForDeliveries(cluster.db, account.id, DELIVERIES_TIMEOUT_MS);
    const waitedMs = Date.now() - started;
    await owner.stop();
    const snapshot = await readDeliveries(cluster.db, account.id);
    const run: RunRecord = {
      kills,
      pauses: owner.pauses,
      breakerAfterMs: BREAKER_AFTER_MS,
      lockLost: [
        ...new Set(
          cluster.linesMatching(LOCK_LOST).flatMap((line) => LOCK_LOST.exec(line)?.[1] ?? []),
        ),
      ],
    };
    const report = checkDeliveries(snapshot, endpoints, run);
    const problems = [...owner.problems, ...report.problems];
    if (unfinished !== 0) {
      problems.unshift(
        `${unfinished} deliveries still pending or held after ${DELIVERIES_TIMEOUT_MS} ms`,
      );
    }
    // Proof that these checks can fail, as for the ledger: on a clean result only.
    let selfCheck = 'not run (deliveries not clean)';
    if (problems.length === 0) {
      const { missed, skipped } = selfCheckDeliveries(snapshot, endpoints, run);
      selfCheck = [
        missed.length === 0 ? 'every tamper caught' : `MISSED: ${missed.join('; ')}`,
        ...(skipped.length === 0
          ? []
          : [`skipped (nothing to tamper with): ${skipped.join('; ')}`]),
      ].join('; ');
      problems.push(...missed.map((tamper) => `deliveries self-check missed: ${tamper}`));
    }
    return {
      problems,
      summary: summaryOf(report, endpoints, waitedMs, selfCheck),
      details: detailsOf(report),
    };
  }

  return { alongside, beforeKill, judge, close };
}
