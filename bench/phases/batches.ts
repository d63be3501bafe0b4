// Batch publishing (issue 32, "Targets"): what POST /api/webhooks/content/batch gives a
// publisher over one event a call, on the accept path (no worker runs) and end to end.
//
//   1. The single-event capacity: the capacity phase's search (capacity.ts), its figure
//      when that phase ran in this run, else the same search run here.
//   2. Batches of `batchSize` creates (about 2 KB each, every event with an idempotency
//      key of its own, as the client library sends them) in a closed loop from
//      `batchConnections` connections: accepted events a second, against 1. Beside them,
//      in turns, single keyed creates from the same generator and connections: the same
//      method on both sides, which the capacity search (fixed rates, p99 < 100 ms, 256
//      connections) is not.
//   3. Batch calls open loop at half the batches' rate (in calls a second): p50 and p99
//      per call.
//   4. The CLI with batches against one worker's drain (support/batch-cli.ts).
//
// Load comes from the paced generator (support/paced-load.ts) in a process of its own:
// at rate 0 a closed loop, each connection sending again as soon as it is answered.
import type { BenchEnvironment } from '../bench-environment.js';
import { cliAgainstDrain } from '../support/batch-cli.js';
import { batchNotes } from '../support/batch-report.js';
import type { BatchLoad, BatchesResult } from '../support/batch-result.js';
import { describeCpu } from '../support/cpu-meter.js';
import { ms, statusSummary } from '../support/format.js';
import { pacedAgainstApi } from '../support/paced-api.js';
import { searchCapacity, type CapacityResult } from './capacity.js';

const RAMP_SECONDS = 1;

interface LoadShape {
  /** Events a call; a single publish when absent. */
  batch?: number;
  /** Calls a second; 0 is a closed loop. */
  rate: number;
  seconds: number;
}

/** One run after a reset, keyed, from the phase's connections, with the API's and generator's CPU. */
async function paced(env: BenchEnvironment, label: string, shape: LoadShape): Promise<BatchLoad> {
  const { plan } = env.options;
  const { load, cpu } = await pacedAgainstApi(env, 'api', {
    runTag: env.tag('batches'),
    rate: shape.rate,
    connections: plan.batchConnections,
    seconds: shape.seconds,
    rampSeconds: RAMP_SECONDS,
    keyed: true,
    ...(shape.batch === undefined ? {} : { batch: shape.batch }),
  });
  const { p50, p99, max } = load.acceptedMs;
  env.log(
    `  ${label}: ${Math.round(load.answered / load.seconds)} calls/s answered ` +
      `${statusSummary(load.byStatus)}${load.errors > 0 ? ` errors:${load.errors}` : ''}, ` +
      `${Math.round(load.goodput)} events/s accepted; per call p50 ${ms(p50)} p99 ${ms(p99)} ` +
      `max ${ms(max)} ms\n      ${describeCpu(cpu)}`,
  );
  return { load, cpu };
}

const meanGoodput = (runs: BatchLoad[]) =>
  runs.reduce((sum, run) => sum + run.load.goodput, 0) / Math.max(1, runs.length);

export async function measureBatches(
  env: BenchEnvironment,
  capacity?: CapacityResult,
): Promise<BatchesResult> {
  const { plan } = env.options;
  const { batchSize, batchConnections, batchSeconds } = plan;
  env.log(
    `batches: ${batchSize} keyed creates a call, closed loop from ${batchConnections} ` +
      `connections, against the single-event capacity; then half that rate open loop; then the CLI`,
  );
  const single = capacity ?? (await searchCapacity(env, 'service', env.api, plan.searchStartRate));
  if (capacity === undefined)
    env.log(`  single-event capacity (this phase's search): ${single.rate}/s`);
  const batch = { batch: batchSize, rate: 0, seconds: batchSeconds };
  await paced(env, 'warm-up, batches (not counted)', { ...batch, seconds: plan.warmupSeconds });
  await paced(env, 'warm-up, single (not counted)', { rate: 0, seconds: plan.warmupSeconds });
  const batchRuns: BatchLoad[] = [];
  const singleRuns: BatchLoad[] = [];
  for (let turn = 1; turn <= plan.batchTurns; turn += 1) {
    batchRuns.push(await paced(env, `batches of ${batchSize} (${turn})`, batch));
    singleRuns.push(
      await paced(env, `single events (${turn})`, { rate: 0, seconds: batchSeconds }),
    );
  }
  const batchRate = meanGoodput(batchRuns);
  const callRate = Math.max(1, Math.round(batchRate / 2 / batchSize));
  const latency = await paced(env, `batches at ${callRate} calls/s (half)`, {
    batch: batchSize,
    rate: callRate,
    seconds: plan.latencySeconds,
  });
  const cli = await cliAgainstDrain(env);
  await env.reset();
  const result: BatchesResult = {
    batchSize,
    connections: batchConnections,
    capacity: { rate: single.rate, measuredBy: capacity === undefined ? 'batches' : 'capacity' },
    batchRuns,
    singleRuns,
    batchRate,
    singleRate: meanGoodput(singleRuns),
    latency: { ...latency, callRate },
    cli,
  };
  env.notes.push(...batchNotes(result));
  return result;
}
