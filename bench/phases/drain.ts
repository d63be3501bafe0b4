// Worker drain rate: the queue is filled through the accept path with workers stopped,
// then workers start and the bench counts finished events until all are. The rate is
// taken from the first finished event to the last, so process start-up is left out.
import type { BenchEnvironment } from '../bench-environment.js';
import { createEventStream, type EventMix } from '../support/event-mix.js';
import { runAmount } from '../support/fixed-rate-load.js';
import { describeCpu, type CpuUse } from '../support/cpu-meter.js';
import { followDrain } from '../support/drain-progress.js';
import { statusSummary } from '../support/format.js';
import {
  contentUrl,
  startFloorWorker,
  startServiceWorker,
  type RunningHttp,
} from '../support/launchers.js';
import { failedCount, finishedCount, type Side } from '../support/progress-queries.js';

const FILL_CONNECTIONS = 64;

export interface DrainResult {
  events: number;
  /** Events finished a second; NaN when none finished. */
  rate: number;
  seconds: number;
  finished: number;
  failed: number;
  /** False when the deadline passed first; `rate` is then over what did finish. */
  complete: boolean;
  mix: { create: number; update: number; delete: number };
  /** Over the rate's window: from the first event finished to the last. */
  cpu: CpuUse;
  /** CPU milliseconds per event finished in that window, by process (or group). */
  cpuMsPerEvent: Record<string, number>;
}

/** One of the processes a drain starts once the queue is full, as its CPU is reported. */
export interface DrainWorker {
  name: string;
  start(): Promise<RunningHttp>;
}

/**
 * Rounds of the fill: a request the API sheds (503, its event loop saturated by the fill
 * itself on a busy machine) is no event, and is sent again, so that every drain starts
 * from the same backlog; on a busy machine one round once queued a quarter of it.
 */
const FILL_ROUNDS = 3;

async function fillQueue(
  env: BenchEnvironment,
  side: Side,
  target: RunningHttp,
  events: number,
  mix: EventMix,
) {
  const stream = createEventStream(env.keys, env.tag('drain'), mix);
  const meter = await env.cpuMeter([{ name: side, pid: target.proc.pid }]);
  const byStatus: Record<string, number> = {};
  let accepted = 0;
  let failures = 0;
  let elapsedSeconds = 0;
  for (let round = 0; round < FILL_ROUNDS && accepted < events; round += 1) {
    const fill = await runAmount(contentUrl(target), stream, events - accepted, FILL_CONNECTIONS);
    for (const [status, n] of Object.entries(fill.byStatus)) {
      byStatus[status] = (byStatus[status] ?? 0) + n;
    }
    accepted += fill.byStatus['202'] ?? 0;
    failures += fill.failures;
    elapsedSeconds += fill.elapsedSeconds;
  }
  const cpu = await meter.stop();
  env.log(
    `  ${side} fill: ${accepted} of ${events} events in ${elapsedSeconds.toFixed(1)} s ` +
      `(${Math.round(accepted / elapsedSeconds)}/s) ${statusSummary(byStatus)}\n` +
      `      ${describeCpu(cpu)}`,
  );
  if (failures > 0) {
    env.notes.push(
      `${side} drain fill: ${failures} answers not 202, sent again; ${accepted} of ${events} queued`,
    );
  }
  return { accepted, mix: { ...stream.counts } };
}

/** The drain phase's own size, window and mix unless a caller gives others. */
export interface DrainOptions {
  events?: number;
  deadlineSeconds?: number;
  mix?: EventMix;
  /** Run after the reset, before the fill: data the drain should find stored. */
  prepare?: () => Promise<void>;
  /** Count only events received since: the log holds others, finished before the run. */
  countFrom?: Date;
  /** The API the queue is filled through, when not `side`'s own (another topology's). */
  fillThrough?: RunningHttp;
}

/**
 * Empties everything, queues `events` events through `side`'s accept path, then
 * starts `workers` together and follows the drain. `label` names it in the log and notes.
 * The workers are stopped before it resolves; what else they left (webhook deliveries)
 * stays until the next reset.
 */
export async function drainOnce(
  env: BenchEnvironment,
  side: Side,
  label: string,
  workers: DrainWorker[],
  options: DrainOptions = {},
): Promise<DrainResult> {
  const { events = env.options.plan.drainEvents, mix: eventMix = 'mixed' } = options;
  const { deadlineSeconds = env.options.plan.drainDeadlineSeconds } = options;
  await env.reset();
  await options.prepare?.();
  const target = options.fillThrough ?? (side === 'service' ? env.api : env.floor);
  const { accepted, mix } = await fillQueue(env, side, target, events, eventMix);
  const running = await Promise.all(workers.map((worker) => worker.start()));
  const startMeter = () =>
    env.cpuMeter(
      running.map((worker, i) => ({ name: workers[i]?.name ?? 'worker', pid: worker.proc.pid })),
    );
  // From the first event finished, as the rate: start-up (node, tsx for the floor, JIT,
  // pools) is no event's cost.
  let meter: Awaited<ReturnType<typeof startMeter>> | undefined;
  const progress = await followDrain(
    env.processes,
    accepted,
    () => finishedCount(env.db, side, options.countFrom),
    deadlineSeconds,
    async () => {
      meter = await startMeter();
    },
  );
  const cpu = await (meter ?? (await startMeter())).stop();
  await Promise.all(running.map((worker) => worker.proc.stop()));
  const result: DrainResult = {
    events: accepted,
    ...progress,
    failed: side === 'service' ? await failedCount(env.db, options.countFrom) : 0,
    mix,
    cpu,
    cpuMsPerEvent: Object.fromEntries(
      Object.entries(cpu.cores).map(([name, cores]) => [
        name,
        (cores * progress.seconds * 1000) / progress.counted,
      ]),
    ),
  };
  const failed = result.failed > 0 ? `, ${result.failed} failed` : '';
  env.log(
    `  ${label}: ${result.finished}/${accepted} finished${failed}, ` +
      `${Math.round(result.rate)}/s over ${result.seconds.toFixed(1)} s\n      ${describeCpu(cpu)}`,
  );
  if (!result.complete) {
    env.notes.push(
      `${label}: ${result.finished} of ${accepted} events applied within the ` +
        `${deadlineSeconds} s drain window; the rate is over those.`,
    );
  }
  if (result.failed > 0) env.notes.push(`${label} drain: ${result.failed} events failed.`);
  return result;
}

/**
 * `count` service workers with the service's defaults (both queues) and `workerEnv`,
 * named worker 1, 2, ...
 */
export function serviceWorkers(
  env: BenchEnvironment,
  count: number,
  workerEnv: Record<string, string> = {},
): DrainWorker[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `worker ${i + 1}`,
    start: () =>
      startServiceWorker(
        env.processes,
        env.stores,
        env.options.cpuProfile,
        'content,deliveries',
        workerEnv,
      ),
  }));
}

export interface DrainFigures {
  /** One service worker, then the floor worker, twice in turns: drift of the shared disk lands on both. */
  service1Runs: DrainResult[];
  floorRuns: DrainResult[];
  /** The mean of the runs of each side: rate and CPU per event. */
  service1: DrainResult;
  floor: DrainResult;
  service2: DrainResult;
}

const TURNS = 2;

/** `runs`' mean rate and CPU per event, the first run's other fields. */
export function meanOf(runs: DrainResult[]): DrainResult {
  const [first] = runs;
  if (first === undefined) throw new Error('no drain runs');
  const mean = (values: number[]) => values.reduce((sum, n) => sum + n, 0) / values.length;
  return {
    ...first,
    rate: mean(runs.map((run) => run.rate)),
    cpuMsPerEvent: Object.fromEntries(
      Object.keys(first.cpuMsPerEvent).map((name) => [
        name,
        mean(runs.map((run) => run.cpuMsPerEvent[name] ?? Number.NaN)),
      ]),
    ),
  };
}

export async function measureDrain(env: BenchEnvironment): Promise<DrainFigures> {
  env.log(
    `drain: ${env.options.plan.drainEvents} mixed events queued with workers stopped; ` +
      `one service worker and the floor worker ${TURNS} times in turns`,
  );
  const floorWorker: DrainWorker = {
    name: 'worker 1',
    start: () => startFloorWorker(env.processes, env.stores, env.options.cpuProfile),
  };
  const service1Runs: DrainResult[] = [];
  const floorRuns: DrainResult[] = [];
  for (let turn = 1; turn <= TURNS; turn += 1) {
    service1Runs.push(
      await drainOnce(env, 'service', `service 1 worker (${turn})`, serviceWorkers(env, 1)),
    );
    floorRuns.push(await drainOnce(env, 'floor', `floor 1 worker (${turn})`, [floorWorker]));
  }
  const service2 = await drainOnce(env, 'service', 'service 2 workers', serviceWorkers(env, 2));
  await env.reset();
  return {
    service1Runs,
    floorRuns,
    service1: meanOf(service1Runs),
    floor: meanOf(floorRuns),
    service2,
  };
}
