// Fairness (a): clients polling one receipt in a closed loop, over 4, 16 and 64
// connections, against the service and against the same service with admission control
// off, in turns. A saturated API that keeps up must answer them, not refuse them.
import type { BenchEnvironment } from '../bench-environment.js';
import { runClosedLoopReads, type ReadLoad } from './closed-loop-reads.js';
import { statusSummary } from './format.js';
import { contentUrl, type RunningHttp } from './launchers.js';

export const POLL_CONNECTIONS = [4, 16, 64] as const;

export interface PollingStep {
  connections: number;
  service: ReadLoad;
  /** The same service with ADMISSION_CONCURRENCY=0. */
  reference: ReadLoad;
}

/** Share of answers that were 200. */
export const okShare = (load: ReadLoad) =>
  load.answered === 0 ? 0 : (load.byStatus['200'] ?? 0) / load.answered;

/**
 * Each connection count is measured twice a side, in turns (on, off, off, on; then the
 * other way round for the next), and each side's two runs are summed: the machine's
 * slow spells then fall on both alike.
 */
export async function measurePolling(
  env: BenchEnvironment,
  service: RunningHttp,
  reference: RunningHttp,
  seconds: number,
): Promise<PollingStep[]> {
  const key = env.keys[0];
  if (key === undefined) throw new Error('no API keys');
  // One receipt to poll, recorded by the API the pollers ask (both share the database).
  const accepted = await fetch(contentUrl(service), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key.key },
    body: JSON.stringify({ event: 'article.delete', data: { slug: env.tag('polled') } }),
  });
  if (accepted.status !== 202) throw new Error(`polled event refused: ${accepted.status}`);
  const { id } = (await accepted.json()) as { id: string };
  const headers = { 'x-api-key': key.key };
  const poll = (target: RunningHttp, connections: number) =>
    runClosedLoopReads(`${contentUrl(target)}/${id}`, headers, connections, seconds);

  // Warm both: JIT, the key cache, the pools.
  await poll(service, 16);
  await poll(reference, 16);
  const steps: PollingStep[] = [];
  for (const [i, connections] of POLL_CONNECTIONS.entries()) {
    const order = i % 2 === 0 ? [service, reference] : [reference, service];
    const runs = new Map<RunningHttp, ReadLoad[]>([
      [service, []],
      [reference, []],
    ]);
    for (const target of [...order, ...[...order].reverse()]) {
      runs.get(target)?.push(await poll(target, connections));
    }
    const on = merged(runs.get(service) ?? []);
    const off = merged(runs.get(reference) ?? []);
    steps.push({ connections, service: on, reference: off });
    env.log(
      `  polling ${String(connections).padStart(2)} connections: service ${Math.round(on.okPerSecond)} ok/s ` +
        `(${(100 * okShare(on)).toFixed(1)}% 200) ${statusSummary(on.byStatus)}; ` +
        `admission off ${Math.round(off.okPerSecond)} ok/s ${statusSummary(off.byStatus)}`,
    );
  }
  return steps;
}

/** Runs of one side as one: counts summed, rates over the time of both, the worse p99. */
function merged(runs: ReadLoad[]): ReadLoad {
  const seconds = runs.reduce((sum, run) => sum + run.seconds, 0);
  const byStatus: Record<string, number> = {};
  for (const run of runs) {
    for (const [status, n] of Object.entries(run.byStatus)) {
      byStatus[status] = (byStatus[status] ?? 0) + n;
    }
  }
  return {
    connections: runs[0]?.connections ?? 0,
    seconds,
    answered: runs.reduce((sum, run) => sum + run.answered, 0),
    byStatus,
    okPerSecond: (byStatus['200'] ?? 0) / seconds,
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    latencyMs: {
      p50: Math.max(...runs.map((run) => run.latencyMs.p50)),
      p99: Math.max(...runs.map((run) => run.latencyMs.p99)),
    },
  };
}
