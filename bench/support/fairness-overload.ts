// Fairness (b): publishing past capacity, open loop, at 0.5, 1, 2 and 4 times the
// capacity the capacity phase measured in this run, from the paced generator in a process
// of its own (paced-load.ts). Each step has connections enough to keep its rate however
// long answers take (rate x 0.2 s, at least the usual 256): a server that slows down must
// refuse, not merely slow the generator. Admission control should keep its goodput near
// capacity, the latency of what it accepts near that of a calm API, and its refusals fast
// and with Retry-After. No worker runs: this is the accept path, as in the capacity phase.
import type { BenchEnvironment } from '../bench-environment.js';
import { describeCpu, type CpuUse } from './cpu-meter.js';
import { statusSummary } from './format.js';
import type { PacedOutcome } from './paced-load.js';
import { pacedAgainstApi } from './paced-api.js';

export const OVERLOAD_FACTORS = [0.5, 1, 2, 4] as const;
/** Seconds of answers a step's connections can wait for before the generator is slowed. */
const CONNECTION_SECONDS = 0.2;
const RAMP_SECONDS = 1;

export interface OverloadStep {
  factor: number;
  load: PacedOutcome;
  cpu: CpuUse;
}

export async function measureOverload(
  env: BenchEnvironment,
  capacity: number,
  seconds: number,
): Promise<OverloadStep[]> {
  const steps: OverloadStep[] = [];
  for (const factor of OVERLOAD_FACTORS) {
    const rate = Math.round(capacity * factor);
    const connections = Math.max(
      env.options.plan.connections,
      Math.ceil(rate * CONNECTION_SECONDS),
    );
    const { load, cpu } = await pacedAgainstApi(env, 'service', {
      runTag: env.tag('overload'),
      rate,
      connections,
      seconds,
      rampSeconds: RAMP_SECONDS,
    });
    steps.push({ factor, load, cpu });
    const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
    env.log(
      `  ${factor}x capacity (${rate}/s), ${connections} connections: ` +
        `${Math.round(load.answered / load.seconds)}/s answered ${statusSummary(load.byStatus)}` +
        `${load.errors > 0 ? ` errors:${load.errors}` : ''}\n` +
        `      goodput ${Math.round(load.goodput)}/s, accepted p50 ${ms(load.acceptedMs.p50)} p99 ${ms(load.acceptedMs.p99)} ms, ` +
        `${load.refused} refused (p99 ${ms(load.refusedMs.p99)} ms, ${load.refusedWithRetryAfter} with Retry-After)\n` +
        `      ${describeCpu(cpu)}`,
    );
  }
  await env.reset();
  return steps;
}
