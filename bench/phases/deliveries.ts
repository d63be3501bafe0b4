// Outgoing webhooks: what every account having two endpoints costs the content drain,
// and how fast one worker delivers. Every figure's reference is the content drain of one
// worker without endpoints, measured first and again last (their mean; their spread is
// the phase's noise). Each content drain fills the queue anew, as the drain phase does.
//
//   1. no endpoints, one worker with both queues (the service's default): the reference;
//   2. two endpoints per account at the bench's receiver; one worker with
//      WORKER_QUEUES=content and nothing consuming deliveries: the outbox alone (messages
//      and deliveries written in the apply transaction, their jobs queued after it);
//   3. one worker with WORKER_QUEUES=deliveries drains the deliveries step 2 left: the
//      delivery rate, against the reference's events a second;
//   4. content (WORKER_QUEUES=content) and deliveries (WORKER_QUEUES=deliveries) in two
//      processes at once, as a deployment that scales them apart runs them;
//   5. one worker with both queues, the default: deliveries share its event loop and pool;
//   6. delivery lag at a moderate fixed rate, one worker with both queues (delivery-lag.ts);
//   7. endpoints deleted; one endpoint per account whose filter passes about 1 message in
//      100, one worker with both queues; then the same endpoints unfiltered
//      (delivery-filter.ts);
//   8. endpoints deleted; the reference again.
import type { BenchPlan } from '../bench-options.js';
import type { BenchEnvironment } from '../bench-environment.js';
import { addEndpoints, deleteEndpoints, type BenchEndpoint } from '../support/bench-endpoints.js';
import { describeCpu, type CpuUse } from '../support/cpu-meter.js';
import { deliveryCounts, type DeliveryCounts } from '../support/delivery-queries.js';
import { followDrain, type DrainProgress } from '../support/drain-progress.js';
import { startServiceWorker, type WorkerQueues } from '../support/launchers.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import {
  deliveryFilterNotes,
  measureDeliveryFilter,
  type DeliveryFilterResult,
} from './delivery-filter.js';
import { measureDeliveryLag, type DeliveryLagResult } from './delivery-lag.js';
import {
  drainOnce,
  serviceWorkers,
  type DrainResult,
  type DrainOptions,
  type DrainWorker,
} from './drain.js';

/** The issue's case: every account has two endpoints, each hearing every change. */
export const ENDPOINTS_PER_ACCOUNT = 2;
/** Above this, the receiver (in the runner) may be what limits the delivery rate. */
const RUNNER_BUSY_CORES = 0.8;

/** A content drain with endpoints, and where its deliveries stood when it ended. */
export type DrainWithDeliveries = DrainResult & { deliveries: DeliveryCounts };

export interface DeliveryDrain extends DrainProgress {
  /** Deliveries waiting when the worker started. */
  deliveries: number;
  failed: number;
  /** Requests the receiver answered meanwhile. */
  received: number;
  cpu: CpuUse;
}

export interface DeliveriesResult {
  endpointsPerAccount: number;
  /** Content drains without endpoints, first and last... */
  without: [DrainResult, DrainResult];
  /** ...and their mean rate: every figure's reference. */
  referenceRate: number;
  outboxOnly: DrainWithDeliveries;
  separate: DrainWithDeliveries;
  together: DrainWithDeliveries;
  throughput: DeliveryDrain;
  lag: DeliveryLagResult;
  /** One endpoint per account, filtered to about 1 message in 100, then unfiltered. */
  filter: DeliveryFilterResult;
}

const worker = (env: BenchEnvironment, name: string, queues: WorkerQueues): DrainWorker => ({
  name,
  start: () => startServiceWorker(env.processes, env.stores, env.options.cpuProfile, queues),
});

async function drainWithEndpoints(
  env: BenchEnvironment,
  label: string,
  workers: DrainWorker[],
  size: DrainOptions,
): Promise<DrainWithDeliveries> {
  const drain = await drainOnce(env, 'service', label, workers, size);
  const deliveries = await deliveryCounts(env.db);
  env.log(
    `      deliveries: ${deliveries.recorded} recorded, ${deliveries.finished} finished ` +
      `by the drain's end${deliveries.failed > 0 ? `, ${deliveries.failed} failed` : ''}`,
  );
  return { ...drain, deliveries };
}

/** One worker consuming deliveries only drains those the outbox-only drain left pending. */
async function drainDeliveries(
  env: BenchEnvironment,
  receiver: WebhookReceiver,
  deadlineSeconds: number,
): Promise<DeliveryDrain> {
  const { recorded } = await deliveryCounts(env.db);
  const receivedBefore = receiver.received();
  const running = await worker(env, 'worker deliveries', 'deliveries').start();
  const meter = await env.cpuMeter([{ name: 'worker deliveries', pid: running.proc.pid }]);
  const progress = await followDrain(
    env.processes,
    recorded,
    async () => (await deliveryCounts(env.db)).finished,
    deadlineSeconds,
  );
  const cpu = await meter.stop();
  await running.proc.stop();
  const { failed } = await deliveryCounts(env.db);
  const result = {
    deliveries: recorded,
    ...progress,
    failed,
    received: receiver.received() - receivedBefore,
    cpu,
  };
  env.log(
    `  deliveries, 1 worker (WORKER_QUEUES=deliveries): ${result.finished}/${recorded} ` +
      `finished${failed > 0 ? `, ${failed} failed` : ''}, ${Math.round(result.rate)}/s over ` +
      `${result.seconds.toFixed(1)} s; the receiver answered ${result.received}\n` +
      `      ${describeCpu(cpu)}`,
  );
  return result;
}

/**
 * The lag run's rate: half of what one worker with both queues could sustain with the
 * endpoints, as a worker's CPU splits between content (the reference's rate) and
 * deliveries (the delivery drain's), at most the plan's. At more, deliveries would fall
 * behind and the lag measure a growing backlog.
 */
function lagRate(env: BenchEnvironment, reference: DrainResult, throughput: DeliveryDrain) {
  const sustained = 1 / (1 / reference.rate + ENDPOINTS_PER_ACCOUNT / throughput.rate);
  const half = Number.isFinite(sustained) ? Math.floor(sustained / 2) : Number.NaN;
  const planned = env.options.plan.deliveryLagRate;
  return half > 0 && half < planned ? half : planned;
}

function deliveryNotes(result: DeliveriesResult, plan: BenchPlan): string[] {
  const {
    deliveryDrainEvents: events,
    deliveryDrainDeadlineSeconds: deadline,
    deliveryLagRate: planned,
  } = plan;
  const [first, last] = result.without;
  const reference = result.referenceRate;
  const spread = Math.abs(first.rate - last.rate) / reference;
  const { throughput, endpointsPerAccount: n } = result;
  const runner = throughput.cpu.cores.runner ?? 0;
  return [
    `Deliveries: each content drain fills ${events} events anew and is followed for at most ` +
      `${deadline} s. The reference drains (one worker, no endpoints) ran at ` +
      `${Math.round(first.rate)}/s first and ${Math.round(last.rate)}/s last ` +
      `(${(spread * 100).toFixed(0)}% apart): drain ratios closer to 1 than that are noise.`,
    `One delivery worker made ${Math.round(throughput.rate)} deliveries a second, ` +
      `${(throughput.rate / reference).toFixed(2)} per event one content worker applies a ` +
      `second. With ${n} endpoints per account each change makes ${n} deliveries: one ` +
      `delivery worker keeps up with one content worker when that ratio is at least ${n}.`,
    ...(throughput.complete
      ? []
      : [
          `Delivery drain: ${throughput.finished} of ${throughput.deliveries} deliveries ` +
            `finished within its ${deadline} s window; the rate is over those.`,
        ]),
    ...(throughput.failed > 0 ? [`Delivery drain: ${throughput.failed} deliveries failed.`] : []),
    ...(result.lag.rate < planned
      ? [
          `Delivery lag ran at ${result.lag.rate} creates/s, not ${planned}: half of what one ` +
            `worker with both queues sustains with ${n} endpoints per account, as this run's ` +
            'drains measured it; at more its deliveries fall behind and lag measures a backlog.',
        ]
      : []),
    ...deliveryFilterNotes(result.filter),
    ...(runner > RUNNER_BUSY_CORES
      ? [
          `The receiver's process (the runner) used ${runner.toFixed(2)} cores during the ` +
            'delivery drain: the receiver may be what limited the rate.',
        ]
      : []),
  ];
}

export async function measureDeliveries(env: BenchEnvironment): Promise<DeliveriesResult> {
  const { deliveryDrainEvents: events, deliveryDrainDeadlineSeconds: deadline } = env.options.plan;
  const size: DrainOptions = { events, deadlineSeconds: deadline };
  env.log(
    `deliveries: content drains of ${events} mixed events without and with ` +
      `${ENDPOINTS_PER_ACCOUNT} webhook endpoints per account; one worker's delivery rate; lag`,
  );
  const receiver = await startWebhookReceiver();
  let endpoints: BenchEndpoint[] = [];
  try {
    const reference = (label = 'no endpoints, 1 worker') =>
      drainOnce(env, 'service', label, serviceWorkers(env, 1), size);
    // Not counted: the first drain after the API starts ran at a third of the last (328/s
    // against 1,000/s at 557c6d0), its fill shed by a cold API and its code not yet
    // compiled, which made the reference's spread wider than any effect measured here.
    await reference('warm-up (not counted)');
    const before = await reference();
    endpoints = await addEndpoints(
      env.api.baseUrl,
      env.accounts,
      ENDPOINTS_PER_ACCOUNT,
      receiver.url,
    );
    const contentOnly = worker(env, 'worker content', 'content');
    const outboxOnly = await drainWithEndpoints(
      env,
      'endpoints, deliveries not consumed',
      [contentOnly],
      size,
    );
    // Right after it: its deliveries are pending, their jobs queued.
    const throughput = await drainDeliveries(env, receiver, deadline);
    const separate = await drainWithEndpoints(
      env,
      'endpoints, deliveries in a 2nd process',
      [contentOnly, worker(env, 'worker deliveries', 'deliveries')],
      size,
    );
    const together = await drainWithEndpoints(
      env,
      'endpoints, 1 worker (both queues)',
      serviceWorkers(env, 1),
      size,
    );
    const lag = await measureDeliveryLag(env, lagRate(env, before, throughput));
    await env.reset();
    await deleteEndpoints(env.api.baseUrl, endpoints);
    endpoints = [];
    const filter = await measureDeliveryFilter(env, receiver, size);
    const after = await reference();
    const result: DeliveriesResult = {
      endpointsPerAccount: ENDPOINTS_PER_ACCOUNT,
      without: [before, after],
      referenceRate: (before.rate + after.rate) / 2,
      outboxOnly,
      separate,
      together,
      throughput,
      lag,
      filter,
    };
    env.notes.push(...deliveryNotes(result, env.options.plan));
    return result;
  } finally {
    // Only after a failure, which is the run's error: one here would hide it.
    if (endpoints.length > 0) await deleteEndpoints(env.api.baseUrl, endpoints).catch(() => {});
    await receiver.stop();
    await env.reset();
  }
}
