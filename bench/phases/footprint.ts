// Footprint: resident memory of the API and of a worker, and Redis's used_memory, after
// a warm-up and again at the end of a soak at a fixed rate with one worker running.
import { readFileSync } from 'node:fs';
import type { BenchEnvironment } from '../bench-environment.js';
import { createEventStream } from '../support/event-mix.js';
import { runFixedRate, type LoadResult } from '../support/fixed-rate-load.js';
import { followApplyPace, type ApplyPace } from '../support/apply-pace.js';
import { describeCpu } from '../support/cpu-meter.js';
import { describeLoad } from '../support/format.js';
import { contentUrl, startServiceWorker } from '../support/launchers.js';

export interface MemorySample {
  apiRssBytes: number;
  workerRssBytes: number;
  redisUsedBytes: number;
}

export interface FootprintResult {
  rate: number;
  soakSeconds: number;
  start: MemorySample;
  end: MemorySample;
  load: LoadResult;
  /** How fast the worker applied over the soak, warm-up included in what it finished. */
  pace: ApplyPace;
}

/** VmRSS of a live process, from /proc (Linux). */
function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
  if (kib === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kib) * 1024;
}

export async function measureFootprint(
  env: BenchEnvironment,
  rate: number,
): Promise<FootprintResult> {
  const { soakSeconds, soakWarmupSeconds, connections } = env.options.plan;
  env.log(`footprint: ${rate}/s article.create for ${soakSeconds} s with one worker running`);
  await env.reset();
  const worker = await startServiceWorker(env.processes, env.stores, env.options.cpuProfile);
  try {
    const url = contentUrl(env.api);
    const sample = async (): Promise<MemorySample> => ({
      apiRssBytes: rssBytes(env.api.proc.pid),
      workerRssBytes: rssBytes(worker.proc.pid),
      redisUsedBytes: await env.redis.usedMemoryBytes(),
    });
    const warm = createEventStream(env.keys, env.tag('soak-warm'), 'creates');
    const warmAccepted = (await runFixedRate(url, warm, rate, soakWarmupSeconds, connections))
      .acceptedTotal;
    const start = await sample();
    const stream = createEventStream(env.keys, env.tag('soak'), 'creates');
    const meter = await env.cpuMeter([
      { name: 'api', pid: env.api.proc.pid },
      { name: 'worker', pid: worker.proc.pid },
    ]);
    const pace = followApplyPace(env.db);
    const load = await runFixedRate(url, stream, rate, soakSeconds, connections);
    const cpu = await meter.stop();
    const end = await sample();
    // Accepted since the reset: the warm-up's events count, since the worker applies them too.
    const applied = await pace.stop(warmAccepted + load.acceptedTotal);
    env.processes.assertNoCrash();
    env.log(
      `  service ${describeLoad(load)}; applied ${applied.firstPerSecond.toFixed(0)}/s in the ` +
        `first minute, ${applied.lastPerSecond.toFixed(0)}/s in the last; ` +
        `${applied.backlogAtEnd} not applied at the end\n      ${describeCpu(cpu)}`,
    );
    if (load.failures > 0) env.notes.push(`footprint soak: ${load.failures} answers not 202.`);
    const perThousand = ((end.redisUsedBytes - start.redisUsedBytes) / load.acceptedTotal) * 1000;
    env.notes.push(
      `Redis used_memory grew ${(perThousand / 1024).toFixed(0)} KiB per 1,000 events during the ` +
        'soak: jobs not yet applied wait there, and finished ones are kept ' +
        '(JOB_KEEP_COMPLETED_SECONDS, 60 s by default, up to 100,000 jobs).',
    );
    return { rate, soakSeconds, start, end, load, pace: applied };
  } finally {
    await worker.proc.stop();
    await env.reset();
  }
}
