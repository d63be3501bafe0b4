// The paced generator (paced-load.ts, in a process of its own) against the bench's API,
// as a step of a phase: after a reset and a pause, from every publisher key, with the
// API's and the generator's CPU metered over the run.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchEnvironment } from '../bench-environment.js';
import type { CpuUse } from './cpu-meter.js';
import { runLoadChild } from './load-children.js';
import type { PacedOutcome, PacedSpec } from './paced-load.js';

export interface PacedRun {
  load: PacedOutcome;
  cpu: CpuUse;
}

/** `spec` against env.api; its CPU is reported as `apiName`'s. */
export async function pacedAgainstApi(
  env: BenchEnvironment,
  apiName: string,
  spec: Omit<PacedSpec, 'host' | 'port' | 'apiKeys'>,
): Promise<PacedRun> {
  const { port, hostname } = new URL(env.api.baseUrl);
  await env.reset();
  await sleep(env.options.plan.settleMs);
  const meter = await env.cpuMeter([
    { name: apiName, pid: env.api.proc.pid },
    { name: 'generator', exitedChildren: true },
  ]);
  const load = await runLoadChild({
    kind: 'paced',
    host: hostname,
    port: Number(port),
    apiKeys: env.keys.map(({ key }) => key),
    ...spec,
  });
  const cpu = await meter.stop();
  env.processes.assertNoCrash();
  return { load, cpu };
}
