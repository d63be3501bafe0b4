// End-to-end lag: article.create at a moderate fixed rate with one worker running, then
// the time each event took from being recorded to being applied, read from the database.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchEnvironment } from '../bench-environment.js';
import { createEventStream } from '../support/event-mix.js';
import { runFixedRate } from '../support/fixed-rate-load.js';
import { describeCpu } from '../support/cpu-meter.js';
import { describeLoad, ms } from '../support/format.js';
import { contentUrl, startFloorWorker, startServiceWorker } from '../support/launchers.js';
import {
  finishedCount,
  lagPercentiles,
  type LagPercentiles,
  type Side,
} from '../support/progress-queries.js';

/** Long enough for a worker that keeps up; one that does not is reported as such. */
const SETTLE_DEADLINE_MS = 15_000;
const WARM_UP_MS = 2_000;

/**
 * Waits for the worker to apply every accepted event, up to SETTLE_DEADLINE_MS, and
 * gives up early when its pace shows it cannot finish by then (a worker slower than the
 * rate is reported as such, not waited for).
 */
async function waitUntilApplied(env: BenchEnvironment, side: Side, accepted: number) {
  const started = Date.now();
  const before = await finishedCount(env.db, side);
  for (let done = before; done < accepted;) {
    await sleep(500);
    done = await finishedCount(env.db, side);
    const elapsed = Date.now() - started;
    const pace = (done - before) / elapsed;
    const left = SETTLE_DEADLINE_MS - elapsed;
    if (left <= 0 || (elapsed >= 2_000 && (accepted - done) / Math.max(pace, 1e-9) > left)) return;
  }
}

async function lagOf(env: BenchEnvironment, side: Side): Promise<LagPercentiles> {
  const { lagRate, lagSeconds, connections } = env.options.plan;
  await env.reset();
  const worker = await (side === 'service' ? startServiceWorker : startFloorWorker)(
    env.processes,
    env.stores,
    env.options.cpuProfile,
  );
  try {
    const target = side === 'service' ? env.api : env.floor;
    const stream = createEventStream(env.keys, env.tag('lag'), 'creates');
    const url = contentUrl(target);
    const meter = await env.cpuMeter([
      { name: side === 'service' ? 'api' : 'floor', pid: target.proc.pid },
      { name: 'worker', pid: worker.proc.pid },
    ]);
    // As for latency, the first seconds are a warm-up: the worker just started (JIT, its
    // pool's connections, Prisma's first queries), which is not the lag of a running one.
    const countFrom = new Date(Date.now() + WARM_UP_MS);
    const load = await runFixedRate(url, stream, lagRate, lagSeconds, connections);
    const cpu = await meter.stop();
    const accepted = load.acceptedTotal;
    await waitUntilApplied(env, side, accepted);
    env.processes.assertNoCrash();
    const lag = await lagPercentiles(env.db, side, countFrom);
    env.log(
      `  ${side.padEnd(7)} ${describeLoad(load)}\n` +
        `      lag of ${lag.events} events after the warm-up (${accepted} accepted): p50 ${ms(lag.p50Ms)} p99 ${ms(lag.p99Ms)} ms\n` +
        `      ${describeCpu(cpu)}`,
    );
    const applied = await finishedCount(env.db, side);
    if (applied < accepted) {
      env.notes.push(`${side} lag: only ${applied} of ${accepted} events applied in time`);
    }
    return lag;
  } finally {
    await worker.proc.stop();
  }
}

export async function measureLag(env: BenchEnvironment) {
  const { lagRate, lagSeconds } = env.options.plan;
  env.log(`lag: ${lagRate}/s article.create for ${lagSeconds} s with one worker running`);
  const service = await lagOf(env, 'service');
  const floor = await lagOf(env, 'floor');
  await env.reset();
  return { rate: lagRate, service, floor };
}
