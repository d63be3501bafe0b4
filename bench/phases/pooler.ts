// The cost of a connection pooler: the API's accept capacity and one worker's drain with
// DATABASE_URL through PgBouncer in transaction mode (on its defaults, DATABASE_DIRECT_URL
// to PostgreSQL), against the same processes connected directly, in turns within one run.
// PgBouncer's own CPU is not counted: it runs beside PostgreSQL, as an operator would.
import { startPgBouncer } from '@ingest/test-harness/pgbouncer';
import type { BenchEnvironment } from '../bench-environment.js';
import { startApi } from '../support/launchers.js';
import { searchCapacityInTurns, type CapacityResult } from './capacity.js';
import { drainOnce, meanOf, serviceWorkers, type DrainResult } from './drain.js';

export interface PoolerResult {
  capacity: { direct: CapacityResult; pooled: CapacityResult };
  /** Run in the order direct, pooled, pooled, direct; `direct` and `pooled` are their means. */
  drains: {
    directRuns: DrainResult[];
    pooledRuns: DrainResult[];
    direct: DrainResult;
    pooled: DrainResult;
  };
}

export async function measurePooler(
  env: BenchEnvironment,
  directCapacity?: number,
): Promise<PoolerResult | undefined> {
  const { searchStartRate } = env.options.plan;
  const direct = env.stores.databaseUrl;
  const pooler = await startPgBouncer(direct).catch((error: unknown) => {
    env.notes.push(`pooler phase not run: ${(error as Error).message}`);
    return undefined;
  });
  if (pooler === undefined) return undefined;
  const pooledEnv = { DATABASE_URL: pooler.urlFor(direct), DATABASE_DIRECT_URL: direct };
  env.log('pooler: capacity and drain through PgBouncer 1.18 (transaction mode) and direct');
  try {
    const pooledApi = await startApi(env.processes, env.stores, env.options.cpuProfile, undefined, {
      env: pooledEnv,
      name: 'api-pooled',
    });
    // Near the direct figure when the capacity phase found it: the steps below pass.
    const startRate = Math.max(searchStartRate, Math.round((directCapacity ?? 0) * 0.6));
    const [directCapacityResult, pooledCapacityResult] = await searchCapacityInTurns([
      { env, label: 'direct', target: env.api, startRate },
      { env, label: 'through PgBouncer', target: pooledApi, startRate },
    ]);
    await pooledApi.proc.stop();
    const drain = (label: string, workerEnv: Record<string, string> = {}) =>
      drainOnce(env, 'service', label, serviceWorkers(env, 1, workerEnv));
    const direct1 = await drain('direct (1)');
    const pooled1 = await drain('through PgBouncer (1)', pooledEnv);
    const pooled2 = await drain('through PgBouncer (2)', pooledEnv);
    const direct2 = await drain('direct (2)');
    await env.reset();
    return {
      capacity: { direct: directCapacityResult!, pooled: pooledCapacityResult! },
      drains: {
        directRuns: [direct1, direct2],
        pooledRuns: [pooled1, pooled2],
        direct: meanOf([direct1, direct2]),
        pooled: meanOf([pooled1, pooled2]),
      },
    };
  } finally {
    await pooler.destroy();
  }
}
