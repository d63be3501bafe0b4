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
import { contentUrl, type RunningHttp } from '../support/launchers.js';

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

/** Where a search steps: a service (its URL and process) under an environment's keys and reset. */
export interface CapacityTarget {
  env: BenchEnvironment;
  label: string;
  target: RunningHttp;
}

/** One step: a reset, a pause, then `rate` for plan.stepSeconds, judged. */
export async function capacityStep(side: CapacityTarget, rate: number): Promise<CapacityStep> {
  const { env, label, target } = side;
  const { plan } = env.options;
  await env.reset();
  await sleep(plan.settleMs);
  const stream = createEventStream(env.keys, env.tag('cap'), 'creates');
  const meter = await env.cpuMeter([{ name: label, pid: target.proc.pid }]);
  const load = await runFixedRate(
    contentUrl(target),
    stream,
    rate,
    plan.stepSeconds,
    plan.connections,
  );
  const cpu = await meter.stop();
  env.processes.assertNoCrash();
  const failure = failureOf(load);
  const verdict = failure === undefined ? 'pass' : `FAIL ${failure}`;
  env.log(`  ${label.padEnd(7)} ${describeLoad(load)}  ${verdict}\n      ${describeCpu(cpu)}`);
  return { rate, failure, load, cpu };
}

/**
 * A warm-up at the start rate, not judged: JIT, and connection pools opened as far as
 * that rate needs, so that the first step does not pay for them.
 */
export async function warmUp(side: CapacityTarget, rate: number): Promise<void> {
  const { env, target } = side;
  const warm = createEventStream(env.keys, env.tag('warm'), 'creates');
  const { plan } = env.options;
  await runFixedRate(contentUrl(target), warm, rate, plan.warmupSeconds, plan.connections);
}

/**
 * The search's rates, one at a time: it yields the next rate to step at, is told whether
 * the step passed, and returns the highest passing rate (0 when even MIN_RATE failed).
 * A generator, so that one search can be run alone or in turns with another.
 */
export function* capacityRates(
  plan: Pick<BenchEnvironment['options']['plan'], 'searchGrowth' | 'bisections' | 'stepTries'>,
  startRate: number,
): Generator<number, number, boolean> {
  /** Whether `rate` passes within `tries` steps. */
  function* passes(rate: number, tries = plan.stepTries): Generator<number, boolean, boolean> {
    for (let i = 0; i < tries; i += 1) if (yield rate) return true;
    return false;
  }
  let passed: number | undefined;
  let failed: number | undefined;
  // On a shared machine one bad second can fail a step; the first one is tried at least
  // twice so that a blip does not send the whole search below the start rate.
  if (yield* passes(startRate, Math.max(2, plan.stepTries))) passed = startRate;
  else failed = startRate;
  // Rise while steps pass.
  let rate = startRate;
  while (failed === undefined && rate * plan.searchGrowth <= MAX_RATE) {
    rate = Math.round(rate * plan.searchGrowth);
    if (yield* passes(rate)) passed = rate;
    else failed = rate;
  }
  // Even the start rate failed: halve until a step passes.
  for (rate = Math.round(startRate / 2); passed === undefined && rate >= MIN_RATE;) {
    if (yield* passes(rate)) passed = rate;
    else failed = rate;
    rate = Math.round(rate / 2);
  }
  for (let i = 0; i < plan.bisections && passed !== undefined && failed !== undefined; i += 1) {
    const middle = Math.round(Math.sqrt(passed * failed));
    if (middle <= passed * 1.02 || middle >= failed * 0.98) break;
    if (yield* passes(middle)) passed = middle;
    else failed = middle;
  }
  return passed ?? 0;
}

/** A search on its own: steps from `startRate` until the bisections are done. */
export async function searchCapacity(
  env: BenchEnvironment,
  label: string,
  target: RunningHttp,
  startRate: number,
): Promise<CapacityResult> {
  const [result] = await searchCapacityInTurns([{ env, label, target, startRate }]);
  return result!;
}

/** A search's target and start, and optionally a wrapper of each of its steps (to observe them). */
export interface CapacitySearch extends CapacityTarget {
  startRate: number;
  observe?: (step: () => Promise<CapacityStep>) => Promise<CapacityStep>;
}

/**
 * Searches of several targets at once, their steps taken in turns (one step of each, then
 * the next of each): a slow spell of the shared machine's disk or cores then falls on the
 * steps of every search alike, where searches one after the other would each meet a
 * different spell. Each target's own search is the same as on its own.
 */
export async function searchCapacityInTurns(sides: CapacitySearch[]): Promise<CapacityResult[]> {
  for (const side of sides) await warmUp(side, side.startRate);
  const searches = sides.map((side) => {
    const rates = capacityRates(side.env.options.plan, side.startRate);
    return { side, rates, next: rates.next(), steps: [] as CapacityStep[] };
  });
  for (let turn = 0; searches.some((search) => !search.next.done); turn += 1) {
    // Every other turn in the opposite order: no search always steps right after another's.
    for (const search of turn % 2 === 0 ? searches : [...searches].reverse()) {
      if (search.next.done) continue;
      const { side } = search;
      const rate = search.next.value;
      const take = () => capacityStep(side, rate);
      const step = await (side.observe ? side.observe(take) : take());
      search.steps.push(step);
      search.next = search.rates.next(step.failure === undefined);
    }
  }
  for (const { side } of searches) await side.env.reset();
  return searches.map(({ next, steps }) => ({ rate: next.done ? next.value : 0, steps }));
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
