// Latency at a fixed rate: half the floor's capacity, for the service and the floor in
// turn, no worker running (the accept path, as in the capacity search). The capacity
// search has warmed both; the load's own ramp-in second is not counted.
import type { BenchEnvironment } from '../bench-environment.js';
import { createEventStream } from '../support/event-mix.js';
import { runFixedRate, type Answer, type LoadResult } from '../support/fixed-rate-load.js';
import { describeCpu } from '../support/cpu-meter.js';
import { describeLoad } from '../support/format.js';
import { contentUrl, type RunningHttp } from '../support/launchers.js';

export interface LatencyResult {
  rate: number;
  service: LoadResult;
  floor: LoadResult;
}

/**
 * `rate` for plan.latencySeconds (or `seconds`) at `target` after a reset, its CPU metered;
 * each answer also into `answers`, when given.
 */
export async function latencyAt(
  env: BenchEnvironment,
  label: string,
  target: RunningHttp,
  rate: number,
  options: { seconds?: number; answers?: Answer[] } = {},
): Promise<LoadResult> {
  const { plan } = env.options;
  await env.reset();
  const stream = createEventStream(env.keys, env.tag('lat'), 'creates');
  const meter = await env.cpuMeter([{ name: label.trim(), pid: target.proc.pid }]);
  const load = await runFixedRate(
    contentUrl(target),
    stream,
    rate,
    options.seconds ?? plan.latencySeconds,
    plan.connections,
    options.answers,
  );
  const cpu = await meter.stop();
  env.processes.assertNoCrash();
  env.log(`  ${label} ${describeLoad(load)}\n      ${describeCpu(cpu)}`);
  return load;
}

export async function measureLatency(env: BenchEnvironment, rate: number): Promise<LatencyResult> {
  env.log(`latency: ${rate}/s for ${env.options.plan.latencySeconds} s, no worker running`);
  const service = await latencyAt(env, 'service', env.api, rate);
  const floor = await latencyAt(env, 'floor  ', env.floor, rate);
  await env.reset();
  return { rate, service, floor };
}
