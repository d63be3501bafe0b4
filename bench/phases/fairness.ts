// Fairness: one account's load is never another account's outage. Three parts, each
// against a reference measured in this run:
// (a) receipt polling in a closed loop over 4, 16 and 64 connections, against the same
//     service with admission control off;
// (b) publishing past capacity, open loop, at 0.5-4x the capacity phase's figure;
// (c) a noisy account (a backlog, publishing at its limit, polling) beside a quiet one,
//     against the quiet one alone. See support/fairness-*.ts.
import type { BenchEnvironment } from '../bench-environment.js';
import { searchCapacity } from './capacity.js';
import { measureNeighbours, type NeighboursResult } from '../support/fairness-neighbours.js';
import { measureOverload, type OverloadStep } from '../support/fairness-overload.js';
import { measurePolling, type PollingStep } from '../support/fairness-polling.js';
import { startApi } from '../support/launchers.js';

export interface FairnessResult {
  /** The capacity (b) is relative to: the capacity phase's, or a search of this phase's. */
  capacity: number;
  polling: PollingStep[];
  overload: OverloadStep[];
  neighbours: NeighboursResult;
}

export async function measureFairness(
  env: BenchEnvironment,
  capacityOfRun: number | undefined,
): Promise<FairnessResult> {
  const { plan } = env.options;
  env.log('fairness (a): closed-loop receipt polling, admission on and off');
  // Two fresh APIs, alike but for admission control, rather than the run's own (which
  // has a capacity search behind it) beside a new one: they differ in that alone.
  const apis = await Promise.all([
    startApi(env.processes, env.stores, false, undefined, { name: 'api-admission-on' }),
    startApi(env.processes, env.stores, false, undefined, {
      env: { ADMISSION_CONCURRENCY: '0' },
      name: 'api-admission-off',
    }),
  ]);
  let polling: PollingStep[];
  try {
    polling = await measurePolling(env, apis[0], apis[1], plan.fairnessPollSeconds);
  } finally {
    await Promise.all(apis.map((api) => api.proc.stop()));
  }

  let capacity = capacityOfRun;
  if (capacity === undefined || capacity <= 0) {
    env.log('fairness (b): no capacity figure in this run; searching one');
    capacity = (await searchCapacity(env, 'service', env.api, plan.searchStartRate)).rate;
  }
  env.log(`fairness (b): publishing at 0.5-4x the capacity of ${capacity}/s, open loop`);
  const overload = await measureOverload(env, capacity, plan.fairnessOverloadSeconds);

  env.log('fairness (c): a noisy account beside a quiet one, shipped defaults, one worker');
  const neighbours = await measureNeighbours(env, plan.fairnessNeighbours);
  return { capacity, polling, overload, neighbours };
}
