// Ingest capacity: the highest fixed rate at which every request is answered 202 with
// p99 under 100 ms. Steps rise geometrically from the start rate until one fails, then
// bisect between the last pass and the first failure. No worker runs: this measures the
// accept path (record + enqueue) alone, for the service and the floor alike.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchEnvironment } from '../bench-environment.js';
import { createEventStream } from '../support/event-mix.js';
import { runFixedRate, type LoadResult } from '../support/fixed-rate-load.js';
import { describeLoad } from '../support/format.js';
import { describeCpu, type CpuUse } from '../support/cpu-meter.js';
import type { RunningHttp } from '../support/launchers.js';

export const P99_LIMIT_MS = 100;
const MAX_RATE = 40_000;
const MIN_RATE = 50;

export interface CapacityStep {
  rate: number;
  /** Why the step failed; undefined when it passed. */
  failure: string | undefined;
  load: LoadResult;
  cpu: CpuUse;
}

export interface CapacityResult {
  /** Highest passing rate; 0 when even MIN_RATE failed. */
  rate: number;
  steps: CapacityStep[];
}

function failureOf(load: LoadResult): string | undefined {
  if (load.failures > 0) {
    const other = Object.entries(load.byStatus).filter(([code]) => code !== '202');
    const detail = [
      ...other.map(([code, n]) => `${n}x ${code}`),
      ...(load.errors > 0 ? [`${load.errors} errors (${load.timeouts} timeouts)`] : []),
    ];
    return `not all 202: ${detail.join(', ')}`;
  }
  if (!(load.latencyMs.p99 < P99_LIMIT_MS)) return `p99 ${load.latencyMs.p99.toFixed(1)} ms`;
  // A server slower than the rate makes autocannon send fewer requests, not queue them.
  if (load.achievedRate < 0.97 * load.targetRate) {
    return `fell behind: ${Math.round(load.achievedRate)}/s answered`;
  }
  return undefined;
}

export async function searchCapacity(
  env: BenchEnvironment,
  label: string,
  target: RunningHttp,
  startRate: number,
): Promise<CapacityResult> {
  const { plan } = env.options;
  const url = `${target.baseUrl}/api/webhooks/content`;
  const steps: CapacityStep[] = [];
  const step = async (rate: number) => {
    await env.reset();
    await sleep(plan.settleMs);
    const stream = createEventStream(env.keys, env.tag('cap'), 'creates');
    const meter = await env.cpuMeter([{ name: label, pid: target.proc.pid }]);
    const load = await runFixedRate(url, stream, rate, plan.stepSeconds, plan.connections);
    const cpu = await meter.stop();
    env.processes.assertNoCrash();
    const failure = failureOf(load);
    steps.push({ rate, failure, load, cpu });
    const verdict = failure === undefined ? 'pass' : `FAIL ${failure}`;
    env.log(`  ${label.padEnd(7)} ${describeLoad(load)}  ${verdict}\n      ${describeCpu(cpu)}`);
    return failure === undefined;
  };

  // A warm-up at the start rate, not judged: JIT, and connection pools opened as far as
  // that rate needs, so that the first step does not pay for them.
  const warm = createEventStream(env.keys, env.tag('warm'), 'creates');
  await runFixedRate(url, warm, startRate, plan.warmupSeconds, plan.connections);

  let passed: number | undefined;
  let failed: number | undefined;
  // On a shared machine one bad second can fail a step; the first one is tried twice so
  // that a blip does not send the whole search below the start rate.
  if ((await step(startRate)) || (await step(startRate))) passed = startRate;
  else failed = startRate;
  // Rise while steps pass.
  let rate = startRate;
  while (failed === undefined && rate * plan.searchGrowth <= MAX_RATE) {
    rate = Math.round(rate * plan.searchGrowth);
    if (await step(rate)) passed = rate;
    else failed = rate;
  }
  // Even the start rate failed: halve until a step passes.
  for (rate = Math.round(startRate / 2); passed === undefined && rate >= MIN_RATE;) {
    if (await step(rate)) passed = rate;
    else failed = rate;
    rate = Math.round(rate / 2);
  }
  for (let i = 0; i < plan.bisections && passed !== undefined && failed !== undefined; i += 1) {
    const middle = Math.round(Math.sqrt(passed * failed));
    if (middle <= passed * 1.02 || middle >= failed * 0.98) break;
    if (await step(middle)) passed = middle;
    else failed = middle;
  }
  await env.reset();
  return { rate: passed ?? 0, steps };
}

export async function measureCapacity(env: BenchEnvironment) {
  const { searchStartRate, stepSeconds } = env.options.plan;
  env.log(`capacity: steps of 1 + ${stepSeconds} s at fixed rates, article.create, no worker`);
  const service = await searchCapacity(env, 'service', env.api, searchStartRate);
  // The floor's search starts near the service's figure rather than from the bottom
  // again: the steps below it would pass and only cost time.
  const floorStart = Math.max(searchStartRate, Math.round(service.rate * 0.6));
  const floor = await searchCapacity(env, 'floor', env.floor, floorStart);
  return { service, floor };
}
