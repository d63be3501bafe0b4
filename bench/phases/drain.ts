// Worker drain rate: the queue is filled through the accept path with workers stopped,
// then workers start and the bench counts finished events until all are. The rate is
// taken from the first finished event to the last, so process start-up is left out.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchEnvironment } from '../bench-environment.js';
import { createEventStream } from '../support/event-mix.js';
import { runAmount } from '../support/fixed-rate-load.js';
import { describeCpu, type CpuUse } from '../support/cpu-meter.js';
import { statusSummary } from '../support/format.js';
import { startFloorWorker, startServiceWorker, type RunningHttp } from '../support/launchers.js';
import { failedCount, finishedCount, type Side } from '../support/progress-queries.js';

const FILL_CONNECTIONS = 64;
const POLL_MS = 200;

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
  cpu: CpuUse;
}

async function fillQueue(env: BenchEnvironment, side: Side, target: RunningHttp) {
  const { drainEvents } = env.options.plan;
  const stream = createEventStream(env.keys, env.tag('drain'), 'mixed');
  const meter = await env.cpuMeter([{ name: side, pid: target.proc.pid }]);
  const fill = await runAmount(
    `${target.baseUrl}/api/webhooks/content`,
    stream,
    drainEvents,
    FILL_CONNECTIONS,
  );
  const cpu = await meter.stop();
  const accepted = fill.byStatus['202'] ?? 0;
  env.log(
    `  ${side} fill: ${drainEvents} events in ${fill.elapsedSeconds.toFixed(1)} s ` +
      `(${Math.round(accepted / fill.elapsedSeconds)}/s) ${statusSummary(fill.byStatus)}\n` +
      `      ${describeCpu(cpu)}`,
  );
  if (fill.failures > 0) {
    env.notes.push(`${side} drain fill: ${fill.failures} of ${drainEvents} not answered 202`);
  }
  return { accepted, mix: { ...stream.counts } };
}

async function drain(env: BenchEnvironment, side: Side, workers: number): Promise<DrainResult> {
  await env.reset();
  const { accepted, mix } = await fillQueue(env, side, side === 'service' ? env.api : env.floor);
  const start = side === 'service' ? startServiceWorker : startFloorWorker;
  const running = await Promise.all(
    Array.from({ length: workers }, () => start(env.processes, env.stores, env.options.cpuProfile)),
  );
  const meter = await env.cpuMeter(
    running.map((worker, i) => ({ name: `worker ${i + 1}`, pid: worker.proc.pid })),
  );
  const deadline = Date.now() + env.options.plan.drainDeadlineSeconds * 1000;
  let first: { at: number; count: number } | undefined;
  let last = { at: performance.now(), count: 0 };
  while (last.count < accepted && Date.now() < deadline) {
    await sleep(POLL_MS);
    env.processes.assertNoCrash();
    last = { at: performance.now(), count: await finishedCount(env.db, side) };
    if (first === undefined && last.count > 0) first = last;
  }
  const cpu = await meter.stop();
  await Promise.all(running.map((worker) => worker.proc.stop()));
  const seconds = first === undefined ? Number.NaN : (last.at - first.at) / 1000;
  const result: DrainResult = {
    events: accepted,
    rate: first === undefined ? Number.NaN : (last.count - first.count) / seconds,
    seconds,
    finished: last.count,
    failed: side === 'service' ? await failedCount(env.db) : 0,
    complete: last.count >= accepted,
    mix,
    cpu,
  };
  const label = `${side} ${workers} worker${workers > 1 ? 's' : ''}`;
  const failed = result.failed > 0 ? `, ${result.failed} failed` : '';
  env.log(
    `  ${label}: ${result.finished}/${accepted} finished${failed}, ` +
      `${Math.round(result.rate)}/s over ${result.seconds.toFixed(1)} s\n      ${describeCpu(cpu)}`,
  );
  if (!result.complete) {
    env.notes.push(
      `${label}: ${result.finished} of ${accepted} events applied within the ` +
        `${env.options.plan.drainDeadlineSeconds} s drain window; the rate is over those.`,
    );
  }
  if (result.failed > 0) env.notes.push(`${label} drain: ${result.failed} events failed.`);
  return result;
}

export async function measureDrain(env: BenchEnvironment) {
  env.log(`drain: ${env.options.plan.drainEvents} mixed events queued with workers stopped`);
  const service1 = await drain(env, 'service', 1);
  const service2 = await drain(env, 'service', 2);
  const floor = await drain(env, 'floor', 1);
  await env.reset();
  return { service1, service2, floor };
}
