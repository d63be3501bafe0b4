// The cost of the topology's indirection: the API's accept capacity and one worker's
// drain with the database through PgBouncer in transaction mode (on its defaults,
// DATABASE_DIRECT_URL to PostgreSQL) and Redis a 3-master cluster with a replica each
// (REDIS_CLUSTER_NODES, six queue shards), against the same processes on PostgreSQL and
// one Redis directly, in turns within one run. The engines' own CPU is not counted: they
// run beside the service's, as an operator's would. Both sides publish from as many
// accounts as the queue has shards four times over, so every master has accounts to
// carry; each master's commands during the topology's drains say how evenly.
import { startPrivateRedisCluster, type ClusterNodeState } from '@ingest/test-harness';
import { startPgBouncer } from '@ingest/test-harness/pgbouncer';
import { createBenchKeys, type BenchEnvironment } from '../bench-environment.js';
import { startApi } from '../support/launchers.js';
import { searchCapacityInTurns, type CapacityResult } from './capacity.js';
import { drainOnce, meanOf, serviceWorkers, type DrainResult } from './drain.js';

/** Accounts both sides publish from: ten to each of the cluster's six shards on average. */
const ACCOUNTS = 60;

export interface TopologyResult {
  capacity: { single: CapacityResult; topology: CapacityResult };
  /** Run in the order single, topology, topology, single; `single` and `topology` are means. */
  drains: {
    singleRuns: DrainResult[];
    topologyRuns: DrainResult[];
    single: DrainResult;
    topology: DrainResult;
  };
  /** Commands each master of the cluster ran over the topology's drains. */
  commandsPerMaster: number[];
}

const mastersOf = (nodes: ClusterNodeState[]) =>
  new Map(nodes.filter((n) => n.role === 'master').map((n) => [n.port, n.commandsProcessed]));

export async function measureTopology(
  env: BenchEnvironment,
  singleCapacity?: number,
): Promise<TopologyResult | undefined> {
  const { searchStartRate } = env.options.plan;
  const direct = env.stores.databaseUrl;
  const engines = await Promise.all([startPgBouncer(direct), startPrivateRedisCluster()]).catch(
    (error: unknown) => {
      env.notes.push(`topology phase not run: ${(error as Error).message}`);
      return undefined;
    },
  );
  if (engines === undefined) return undefined;
  const [pooler, cluster] = engines;
  const topologyEnv = {
    DATABASE_URL: pooler.urlFor(direct),
    DATABASE_DIRECT_URL: direct,
    REDIS_CLUSTER_NODES: cluster.nodes.join(','),
  };
  env.log(
    'topology: capacity and drain through PgBouncer 1.18 and a 3-master Redis Cluster, and on one PostgreSQL and one Redis',
  );
  try {
    const { keys } = await createBenchKeys(env.api.baseUrl, ACCOUNTS, 1);
    const spread: BenchEnvironment = { ...env, keys };
    const topologyApi = await startApi(
      env.processes,
      env.stores,
      env.options.cpuProfile,
      undefined,
      {
        env: topologyEnv,
        name: 'api-topology',
      },
    );
    // Near the single node's figure when the capacity phase found it: the steps below pass.
    const startRate = Math.max(searchStartRate, Math.round((singleCapacity ?? 0) * 0.6));
    const [singleCapacityResult, topologyCapacityResult] = await searchCapacityInTurns([
      { env: spread, label: 'single node', target: env.api, startRate },
      { env: spread, label: 'topology', target: topologyApi, startRate },
    ]);
    // The capacity steps queued jobs no worker took; their events are gone with the reset.
    await cluster.flush();
    const single = (label: string) => drainOnce(spread, 'service', label, serviceWorkers(env, 1));
    const before = mastersOf(await cluster.state());
    const topology = (label: string) =>
      drainOnce(spread, 'service', label, serviceWorkers(env, 1, topologyEnv), {
        fillThrough: topologyApi,
      });
    const single1 = await single('single node (1)');
    const topology1 = await topology('topology (1)');
    const topology2 = await topology('topology (2)');
    const single2 = await single('single node (2)');
    const after = mastersOf(await cluster.state());
    await topologyApi.proc.stop();
    await env.reset();
    return {
      capacity: { single: singleCapacityResult!, topology: topologyCapacityResult! },
      drains: {
        singleRuns: [single1, single2],
        topologyRuns: [topology1, topology2],
        single: meanOf([single1, single2]),
        topology: meanOf([topology1, topology2]),
      },
      commandsPerMaster: [...after].map(([port, count]) => count - (before.get(port) ?? 0)),
    };
  } finally {
    await Promise.all([pooler.destroy(), cluster.destroy()]);
  }
}
