// A publish timed end to end against one service worker, as the cli phase and the
// batches phase time theirs: from the publish's start to its last 202 (accepted), and
// to its last event applied (end to end), with the CPU of the API, the worker and the
// publisher meanwhile.
import type { BenchEnvironment } from '../bench-environment.js';
import { answersSince, logOffset } from './bulk-publish.js';
import type { PublishRun } from './cli-result.js';
import { describeCpu, type MeteredProcess } from './cpu-meter.js';
import { statusSummary } from './format.js';
import { startServiceWorker, type RunningHttp } from './launchers.js';
import { lastFinishedAt, lastSequence, type EventScope } from './order-queries.js';
import { waitUntilFinished } from './slug-events.js';

export interface Publisher {
  accountId: string;
  key: string;
}

/** Empties the tables, starts one service worker, runs `body`, stops the worker. */
export async function withWorker<T>(
  env: BenchEnvironment,
  body: (worker: RunningHttp) => Promise<T>,
) {
  await env.reset();
  const worker = await startServiceWorker(env.processes, env.stores, env.options.cpuProfile);
  try {
    return await body(worker);
  } finally {
    await worker.proc.stop();
  }
}

/**
 * Times `publish` (which must leave `events` events accepted for the account) and the
 * apply of its events by `worker`; throws when they are not all applied in time.
 * `publish.phase` names the phase in that error and in the notes ('cli' unless given).
 */
export async function timePublish(
  env: BenchEnvironment,
  label: string,
  publisher: Publisher,
  worker: RunningHttp,
  publish: {
    events: number;
    run: () => Promise<void>;
    processes?: MeteredProcess[];
    phase?: string;
  },
): Promise<{ run: PublishRun; scope: EventScope }> {
  const { events, phase = 'cli' } = publish;
  const scope = { after: await lastSequence(env.db), accountId: publisher.accountId };
  const meter = await env.cpuMeter([
    { name: 'api', pid: env.api.proc.pid },
    { name: 'worker', pid: worker.proc.pid },
    ...(publish.processes ?? []),
  ]);
  const apiLog = env.api.proc.logFile;
  const offset = apiLog === undefined ? 0 : logOffset(apiLog);
  const startedAt = Date.now();
  const started = performance.now();
  await publish.run();
  const acceptSeconds = (performance.now() - started) / 1000;
  const cpu = await meter.stop();
  const answers = apiLog === undefined ? {} : answersSince(apiLog, offset);
  const deadline = Date.now() + env.options.plan.cliApplyDeadlineSeconds * 1000;
  const counts = await waitUntilFinished(env, scope, events, deadline);
  if (counts.recorded !== events || counts.finished < events) {
    throw new Error(
      `${phase}: ${label}: ${counts.recorded} events recorded for ${events} sent, ${counts.finished} ` +
        `applied within ${env.options.plan.cliApplyDeadlineSeconds} s of the publish's end`,
    );
  }
  const endToEndSeconds = ((await lastFinishedAt(env.db, scope)) - startedAt) / 1000;
  const run: PublishRun = {
    events,
    acceptSeconds,
    acceptRate: events / acceptSeconds,
    endToEndSeconds,
    endToEndRate: events / endToEndSeconds,
    failed: counts.failed,
    answers,
    cpu,
  };
  if (run.failed > 0) env.notes.push(`${phase} phase, ${label}: ${run.failed} events failed.`);
  env.log(
    `  ${label}: ${events} accepted in ${acceptSeconds.toFixed(1)} s ` +
      `(${Math.round(run.acceptRate)}/s); all applied ${endToEndSeconds.toFixed(1)} s after ` +
      `the start (${Math.round(run.endToEndRate)}/s)${run.failed > 0 ? `, ${run.failed} failed` : ''}` +
      `; the API answered ${statusSummary(answers)}\n      ${describeCpu(cpu)}`,
  );
  return { run, scope };
}
