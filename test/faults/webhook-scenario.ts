// The webhook-receivers scenario's companion: before the load, the account registers one
// endpoint per receiver; during it, receivers misbehave (down, failing, slow past the
// timeout) and come back once the load and the deliveries have gone far enough (Phase),
// while workers are SIGKILLed with attempts in flight; once the events have drained and
// no delivery is pending, what each receiver got is judged against PostgreSQL
// (deliveries-check.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { bearer, fetchClient, type PublisherAccount } from '@ingest/test-harness';
import { checkDeliveries, type DeliveriesReport, type EndpointRecord } from './deliveries-check.js';
import { attemptsAt, readDeliveries, waitForDeliveries } from './deliveries-queries.js';
import { selfCheckDeliveries } from './deliveries-self-check.js';
import { markdownTable } from './markdown-table.js';
import type { Companion, CompanionSetup, CompanionVerdict, FaultContext } from './scenarios.js';
import { startReceiver, type Behaviour, type Receiver } from './webhook-receivers.js';

/**
 * A receiver's behaviour from a point on: not before this share of the load, nor before
 * its endpoint's deliveries have recorded this many attempts (all failed, until it is
 * back), unless the load has been over for PHASE_BOUND_MS. Load progress alone is a poor
 * clock on a busy machine: workers restarting after a kill may apply the events seconds
 * late, and a receiver would then be back before anything was sent to it.
 */
interface Phase {
  behaviour: Behaviour;
  from: number;
  afterAttempts?: number;
}

interface ReceiverPlan {
  name: string;
  /** The types its endpoint subscribes to; every type when absent. */
  events?: string[];
  /** The first from the start. */
  phases: Phase[];
}

// Worker 1 is SIGKILLed at 30% of the load, worker 2 at 65%, each once attempts are held
// open at the receivers (killWorkersInTurn): the first kill finds the slow receiver
// holding attempts until they time out, the second mostly finds it answering in time, so
// that attempts about to succeed are cut too.
const PLANS: ReceiverPlan[] = [
  // Down for the whole load: its deliveries pile up on the retry schedule until it is up.
  {
    name: 'down',
    phases: [
      { behaviour: 'refuse', from: 0 },
      { behaviour: 'ok', from: 1, afterAttempts: 60 },
    ],
  },
  {
    name: 'failing',
    phases: [
      { behaviour: 'fail', from: 0 },
      { behaviour: 'ok', from: 0.45, afterAttempts: 30 },
    ],
  },
  // Told of fewer types, so that the filter is checked too (no article.updated).
  {
    name: 'slow',
    events: ['article.created', 'article.deleted', 'highlight.created'],
    phases: [
      { behaviour: 'time-out', from: 0 },
      { behaviour: 'slow', from: 0.4, afterAttempts: 15 },
      { behaviour: 'ok', from: 1 },
    ],
  },
];

/** Once the load is over, a receiver waits at most this long for a phase's attempts. */
const PHASE_BOUND_MS = 20_000;
/** Every phase lasts at least this long, even when the next one's point is already past. */
const PHASE_MIN_MS = 3_000;
/** Before a kill: attempts held open at the receivers it waits for, and for how long at most. */
const HELD_AT_KILL = 2;
const HELD_WAIT_MS = 5_000;
// Past the last receiver's return, a delivery waits at most the schedule's longest wait (5 s).
const DELIVERIES_TIMEOUT_MS = 45_000;

const timelineText = ({ phases }: ReceiverPlan) =>
  phases
    .map(({ behaviour, from, afterAttempts }) =>
      from === 0
        ? behaviour
        : `${behaviour} at ${from * 100}%${afterAttempts === undefined ? '' : ` and ${afterAttempts} attempts`}`,
    )
    .join(', ');

async function registerEndpoint(
  baseUrl: string,
  account: PublisherAccount,
  receiver: Receiver,
  plan: ReceiverPlan,
): Promise<{ id: string; secret: string; events: string[] }> {
  const response = await fetchClient(baseUrl)({
    method: 'POST',
    path: '/api/webhooks/endpoints',
    headers: bearer(account.token),
    body: {
      url: receiver.url,
      description: `fault suite: ${timelineText(plan)}`,
      events: plan.events,
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
}: CompanionSetup): Promise<Companion> {
  const receivers: Receiver[] = [];
  const endpoints: EndpointRecord[] = [];
  const close = async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
  };
  try {
    for (const plan of PLANS) {
      const receiver = await startReceiver(plan.name, plan.phases[0]?.behaviour ?? 'ok');
      receivers.push(receiver);
      const endpoint = await registerEndpoint(cluster.baseUrl, account, receiver, plan);
      endpoints.push({ ...endpoint, name: plan.name, requests: receiver.requests });
    }
  } catch (error) {
    await close();
    throw error;
  }
  log(
    `  webhook receivers: ${PLANS.map((plan) => `${plan.name} (${timelineText(plan)})`).join('; ')}`,
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
    while (attempts < (phase.afterAttempts ?? 0) && !overdue) {
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
          const held = receiver.open();
          await receiver.become(phase.behaviour);
          const short = attempts < (phase.afterAttempts ?? 0) ? ' only' : '';
          context.log(
            `receiver ${plan.name} now ${phase.behaviour}, after${short} ${attempts} attempts (${held} held open)`,
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
    const pending = await waitForDeliveries(cluster.db, account.id, DELIVERIES_TIMEOUT_MS);
    const waitedMs = Date.now() - started;
    const snapshot = await readDeliveries(cluster.db, account.id);
    const report = checkDeliveries(snapshot, endpoints, kills);
    const problems = [...report.problems];
    if (pending !== 0) {
      problems.unshift(`${pending} deliveries still pending after ${DELIVERIES_TIMEOUT_MS} ms`);
    }
    // Proof that these checks can fail, as for the ledger: on a clean result only.
    let selfCheck = 'not run (deliveries not clean)';
    if (problems.length === 0) {
      const { missed, skipped } = selfCheckDeliveries(snapshot, endpoints);
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
      summary: summaryOf(report, waitedMs, selfCheck),
      details: detailsOf(report),
    };
  }

  return { alongside, beforeKill, judge, close };
}

function summaryOf(report: DeliveriesReport, waitedMs: number, selfCheck: string): string {
  const sum = (count: (e: DeliveriesReport['endpoints'][number]) => number) =>
    report.endpoints.reduce((total, endpoint) => total + count(endpoint), 0);
  return [
    `webhooks: ${report.succeeded} of ${report.events} events succeeded, ${report.messages} messages, ${report.deliveries} deliveries`,
    `${sum((e) => e.requests)} requests received, ${sum((e) => e.duplicates)} duplicates (${sum((e) => e.afterSuccess)} after a 2xx)`,
    `${sum((e) => e.cutByDeath)} attempts cut by a dying worker`,
    `${sum((e) => e.failedAttempts)} attempts failed before success`,
    `last delivery ${(waitedMs / 1000).toFixed(1)} s after the events drained`,
    `self-check: ${selfCheck}`,
  ].join('; ');
}

function detailsOf(report: DeliveriesReport): string[] {
  const headers = [
    'receiver',
    'behaviour',
    'messages',
    'requests',
    'duplicates',
    'after a 2xx',
    'cut by a death',
    'attempts',
    'failed before success',
    'most attempts',
  ];
  const rows = report.endpoints.map((counts) => {
    const plan = PLANS.find((candidate) => candidate.name === counts.name);
    return [
      counts.name,
      plan === undefined ? '?' : timelineText(plan),
      counts.messages,
      counts.requests,
      counts.duplicates,
      counts.afterSuccess,
      counts.cutByDeath,
      counts.attempts,
      counts.failedAttempts,
      counts.maxAttempts,
    ].map(String);
  });
  return markdownTable(headers, rows).split('\n');
}
