// Delivery lag: article.create at a moderate fixed rate (deliveries.ts chooses it) with
// one worker (both queues, the service's default) while every account's endpoints hear
// every change. Each delivery's
// lag runs from the transaction that applied its change to the receiver's answer; the
// same events' content lag (accepted to applied) is its reference: a subscriber hears of
// a change about the sum of the two after it was sent.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchEnvironment } from '../bench-environment.js';
import { describeCpu, type CpuUse } from '../support/cpu-meter.js';
import { deliveryCounts, deliveryLag, type DeliveryLag } from '../support/delivery-queries.js';
import { createEventStream } from '../support/event-mix.js';
import { runFixedRate } from '../support/fixed-rate-load.js';
import { describeLoad, ms } from '../support/format.js';
import { contentUrl, startServiceWorker } from '../support/launchers.js';
import { finishedCount, lagPercentiles, type LagPercentiles } from '../support/progress-queries.js';

/** As the lag phase's: the worker has just started (JIT, pools, first queries). */
const WARM_UP_MS = 2_000;
/** Ample at a rate far under one worker's: one that misses it is reported, not waited for. */
const SETTLE_DEADLINE_MS = 15_000;

export interface DeliveryLagResult {
  /** article.create a second; each makes one delivery per endpoint of its account. */
  rate: number;
  seconds: number;
  accepted: number;
  deliveries: { recorded: number; finished: number };
  delivery: DeliveryLag;
  content: LagPercentiles;
  cpu: CpuUse;
}

/** Until every accepted event is applied and every delivery finished, or the deadline. */
async function waitUntilDelivered(env: BenchEnvironment, accepted: number): Promise<void> {
  const deadline = Date.now() + SETTLE_DEADLINE_MS;
  while (Date.now() < deadline) {
    const counts = await deliveryCounts(env.db);
    const applied = await finishedCount(env.db, 'service');
    if (applied >= accepted && counts.finished >= counts.recorded) return;
    await sleep(250);
  }
}

/** Run with the endpoints in place; leaves the tables and queues as the run left them. */
export async function measureDeliveryLag(
  env: BenchEnvironment,
  rate: number,
): Promise<DeliveryLagResult> {
  const { deliveryLagSeconds: seconds, connections } = env.options.plan;
  await env.reset();
  const worker = await startServiceWorker(env.processes, env.stores, env.options.cpuProfile);
  try {
    const stream = createEventStream(env.keys, env.tag('delivery-lag'), 'creates');
    const meter = await env.cpuMeter([
      { name: 'api', pid: env.api.proc.pid },
      { name: 'worker', pid: worker.proc.pid },
    ]);
    const countFrom = new Date(Date.now() + WARM_UP_MS);
    const url = contentUrl(env.api);
    const load = await runFixedRate(url, stream, rate, seconds, connections);
    const cpu = await meter.stop();
    const accepted = load.acceptedTotal;
    await waitUntilDelivered(env, accepted);
    env.processes.assertNoCrash();
    const counts = await deliveryCounts(env.db);
    const delivery = await deliveryLag(env.db, countFrom);
    const content = await lagPercentiles(env.db, 'service', countFrom);
    env.log(
      `  delivery lag: ${describeLoad(load)}\n` +
        `      ${delivery.deliveries} deliveries after the warm-up: applied → delivered ` +
        `p50 ${ms(delivery.p50Ms)} p99 ${ms(delivery.p99Ms)} ms (the attempt alone ` +
        `p50 ${ms(delivery.attemptP50Ms)} p99 ${ms(delivery.attemptP99Ms)} ms); ` +
        `their ${content.events} events accepted → applied p50 ${ms(content.p50Ms)} p99 ${ms(content.p99Ms)} ms\n` +
        `      ${describeCpu(cpu)}`,
    );
    if (counts.finished < counts.recorded || counts.failed > 0) {
      env.notes.push(
        `Delivery lag: ${counts.finished} of ${counts.recorded} deliveries finished within ` +
          `${SETTLE_DEADLINE_MS / 1000} s of the load's end, ${counts.failed} failed.`,
      );
    }
    return {
      rate,
      seconds,
      accepted,
      deliveries: { recorded: counts.recorded, finished: counts.finished },
      delivery,
      content,
      cpu,
    };
  } finally {
    await worker.proc.stop();
  }
}
