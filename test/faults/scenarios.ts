// The faults, one a scenario. Each is injected once the load is well under way (see
// run-scenario.ts) and returns when the system has been given back everything it lost:
// the checks then judge whether it recovered by itself. A scenario may also bring its own
// traffic (`shape`); the others share the run's. It may also put something else under
// test besides the events (`companion`): webhook receivers, or another account's flood,
// judged by checks of their own.
import { setTimeout as sleep } from 'node:timers/promises';
import type { PublisherAccount } from '@ingest/test-harness';
import type { Cluster } from './harness.js';
import { startErasedNeighbour } from './erased-neighbour.js';
import { startNoisyNeighbour } from './noisy-neighbour.js';
import { startWebhookReceivers } from './webhook-scenario.js';
import { SPREAD_MIX, type EventMix, type WorkloadShape } from './workload.js';

export interface FaultContext {
  cluster: Cluster;
  log: (line: string) => void;
  /** How long an outage lasts (Redis, PostgreSQL). */
  outageMs: number;
  /** Resolves once this share of the scenario's events (or load time) has gone by. */
  whenProgress: (fraction: number) => Promise<void>;
  /**
   * With a companion: called before a worker is killed; waits (briefly) until some of its
   * work is in flight, for the kill to cut, and says how much was.
   */
  beforeKill?: () => Promise<string>;
}

export interface Scenario {
  name: string;
  fault: string;
  /** Only in the full run (`--quick` leaves it out). */
  fullOnly?: boolean;
  /**
   * Only on a single node (a single Redis), or only on the topology (`--topology`: a
   * Redis Cluster, PgBouncer, a read replica, two APIs). Unset: on both.
   */
  only?: 'single' | 'topology';
  /** Its own traffic, by mode; without it, the run's (many slugs, a few events each). */
  shape?: Record<'quick' | 'full', WorkloadShape>;
  inject(context: FaultContext): Promise<void>;
  /** Started once the scenario's account exists, before the load (see Companion). */
  companion?: (setup: CompanionSetup) => Promise<Companion>;
}

export interface CompanionSetup {
  cluster: Cluster;
  account: PublisherAccount;
  log: (line: string) => void;
  /** The scenario's tag (unique to the run), the run's mode, and the scenario's seed. */
  tag: string;
  mode: 'quick' | 'full';
  seed: number;
}

/**
 * Something else a scenario puts under test besides the events (webhook receivers and
 * their endpoints, another account's flood): it acts during the load, alongside the
 * fault, and is judged once the events have drained. A problem it finds fails the scenario.
 */
export interface Companion {
  alongside(context: FaultContext): Promise<void>;
  /** See FaultContext.beforeKill. */
  beforeKill(): Promise<string>;
  /** Waits (bounded) for its own work to finish, then checks it. */
  judge(): Promise<CompanionVerdict>;
  /** Called whatever happened. */
  close(): Promise<void>;
}

export interface CompanionVerdict {
  problems: string[];
  /** One line for the log and the results. */
  summary: string;
  /** Markdown lines for the results file (a table). */
  details: string[];
}

/**
 * Worker 2 recovers worker 1's jobs once their locks lapse. Worker 2 dies later, possibly
 * before worker 1 is back: then no worker runs for a moment, and the jobs wait in Redis
 * for whichever starts first.
 */
async function killWorkersInTurn(context: FaultContext): Promise<void> {
  const { cluster, log, whenProgress } = context;
  log(`SIGKILL worker 1${(await context.beforeKill?.()) ?? ''}`);
  await cluster.stopWorker(0, 'SIGKILL');
  const first = sleep(1_000).then(() => cluster.startWorker(0));
  await whenProgress(0.65);
  log(`SIGKILL worker 2${(await context.beforeKill?.()) ?? ''}`);
  await cluster.stopWorker(1, 'SIGKILL');
  await sleep(1_000);
  await Promise.all([first, cluster.startWorker(1)]);
  log('both workers running again');
}

async function killApi({ cluster, log }: FaultContext): Promise<void> {
  log('SIGKILL the API');
  await cluster.restartApi('SIGKILL');
  log('new API listening');
}

// A few articles changed over and over (a live blog, a score being kept): once one exists,
// nine events in ten update it; the rest delete it (the next is then most likely a create
// again), add a highlight about it, or create its slug again (SLUG_TAKEN).
const HOT_MIX: EventMix = {
  exists: { create: 0.02, delete: 0.05, highlight: 0.1 },
  missing: SPREAD_MIX.missing,
};
// Several events of a slug in flight at once, leaving in groups as large as the bot's 12
// lanes: paced evenly, a slug's next event would mostly leave after the previous answer.
const HOT = { mix: HOT_MIX, inFlightPerSlug: 4, burst: 12 };
// Batches as a bulk publisher sends them: many slugs at once, a slug's next event often in
// the same call as the one before it, calls leaving in groups as large as a batch.
const BATCHED = { mix: SPREAD_MIX, inFlightPerSlug: 2, burst: 25, batch: 25 };

export const SCENARIOS: Scenario[] = [
  {
    name: 'baseline',
    fault: 'none',
    inject: async () => {},
  },
  {
    name: 'worker-sigkill',
    fault: 'SIGKILL worker 1 mid-load, restart it; SIGKILL worker 2 later, restart it',
    inject: killWorkersInTurn,
  },
  {
    name: 'worker-sigstop',
    fault: 'SIGSTOP worker 1 for 8 s (locks lapse, its jobs go to worker 2), then SIGCONT',
    async inject({ cluster, log }) {
      // A hung worker that wakes up: it resumes jobs (and transactions) that another
      // worker has taken over meanwhile. Each event must still be applied once.
      log('SIGSTOP worker 1');
      await cluster.freezeWorker(0, 8_000);
      log('SIGCONT worker 1');
    },
  },
  {
    name: 'redis-restart',
    fault: 'redis-server killed, down for the outage, restarted empty (no persistence)',
    only: 'single',
    async inject({ cluster, log, outageMs }) {
      const { redis } = cluster;
      if (redis === undefined) throw new Error('redis-restart needs a single Redis');
      log(`Redis down for ${outageMs} ms`);
      await redis.stop();
      await sleep(outageMs);
      await redis.start();
      log('Redis back, empty');
    },
  },
  {
    name: 'postgres-restart',
    fault: 'pg_ctl stop -m fast, down for the outage, start',
    async inject({ cluster, log, outageMs }) {
      log(`PostgreSQL stopped (fast) for ${outageMs} ms`);
      await cluster.postgres.stop('fast');
      await sleep(outageMs);
      await cluster.postgres.start();
      log('PostgreSQL back');
    },
  },
  {
    name: 'postgres-crash',
    fault: 'pg_ctl stop -m immediate (crash, recovery on start), down for the outage',
    fullOnly: true,
    async inject({ cluster, log, outageMs }) {
      log(`PostgreSQL crashed (immediate) for ${outageMs} ms`);
      await cluster.postgres.stop('immediate');
      await sleep(outageMs);
      await cluster.postgres.start();
      log('PostgreSQL back after crash recovery');
    },
  },
  {
    name: 'pgbouncer-restart',
    fault: 'PgBouncer killed (every pooled connection drops), down for the outage, restarted',
    only: 'topology',
    async inject({ cluster, log, outageMs }) {
      const { pooler } = cluster;
      if (pooler === undefined) throw new Error('pgbouncer-restart needs the topology');
      log(`PgBouncer down for ${outageMs} ms`);
      await pooler.stop();
      await sleep(outageMs);
      await pooler.start();
      log('PgBouncer back');
    },
  },
  {
    name: 'api-one-of-two-sigkill',
    fault:
      'SIGKILL one of the two APIs mid-request, left down for the outage (the bots retry on the other), then started again',
    only: 'topology',
    async inject({ cluster, log, outageMs }) {
      log(`SIGKILL API 2 for ${outageMs} ms`);
      await cluster.stopApi(1, 'SIGKILL');
      await sleep(outageMs);
      await cluster.startApi(1);
      log('API 2 listening again');
    },
  },
  {
    name: 'redis-master-failover',
    fault:
      'SIGKILL a Redis master mid-load (its in-memory data gone); its replica is promoted; the old master restarts as a replica',
    only: 'topology',
    async inject({ cluster, log }) {
      const { redisCluster } = cluster;
      if (redisCluster === undefined) throw new Error('redis-master-failover needs a cluster');
      // The master that has served the most commands: the one the load leans on most.
      const masters = (await redisCluster.state()).filter((node) => node.role === 'master');
      const victim = masters.sort((a, b) => b.commandsProcessed - a.commandsProcessed)[0]!;
      log(`SIGKILL Redis master :${victim.port}`);
      const killedAt = Date.now();
      await redisCluster.kill(victim.port);
      await redisCluster.waitUntilHealthy(30_000);
      log(`every slot served again after ${Date.now() - killedAt} ms (replica promoted)`);
      await redisCluster.restart(victim.port);
      log(`:${victim.port} back, as a replica`);
    },
  },
  {
    name: 'replica-stop',
    fault:
      'the read replica stopped for the outage: public reads fall back to the primary, then return to the replica',
    only: 'topology',
    async inject({ cluster, log, outageMs }) {
      const { replica } = cluster;
      if (replica === undefined) throw new Error('replica-stop needs the topology');
      log(`read replica down for ${outageMs} ms`);
      await replica.stop('immediate');
      // The APIs notice within their lag check (every second); from then on every public
      // read must be answered from the primary.
      await sleep(2_000);
      const failed: string[] = [];
      for (const baseUrl of cluster.baseUrls) {
        const response = await fetch(`${baseUrl}/api/articles?limit=5`);
        if (response.status !== 200) failed.push(`${baseUrl}: ${response.status}`);
      }
      await sleep(Math.max(0, outageMs - 2_000));
      await replica.start();
      log('read replica back');
      if (failed.length > 0) {
        throw new Error(`public reads failed with the replica down: ${failed.join(', ')}`);
      }
    },
  },
  {
    name: 'api-sigterm',
    fault: 'SIGTERM the API, start a new one on the same port',
    async inject({ cluster, log }) {
      log('SIGTERM the API');
      await cluster.restartApi('SIGTERM');
      log('new API listening');
    },
  },
  {
    name: 'api-sigkill',
    fault: 'SIGKILL the API mid-request, start a new one on the same port',
    inject: killApi,
  },
  {
    // The same fault on batches: a call cut by the kill is sent again whole, with the same
    // keys, and must record each of its events once, in its order.
    name: 'api-sigkill-batches',
    fault:
      'events sent in batches of up to 25 (two of a slug in flight); SIGKILL the API mid-call, start a new one on the same port',
    shape: {
      quick: { ...BATCHED, slugs: 60, minEvents: 3, maxEvents: 6 },
      full: { ...BATCHED, slugs: 120, minEvents: 3, maxEvents: 8 },
    },
    inject: killApi,
  },
  {
    name: 'webhook-receivers',
    fault:
      'webhook receivers down, answering 500, or slow past the timeout, then back (one endpoint filtered, one rate-limited; those failing 4 s paused by the breaker, resumed by their owner); SIGKILL worker 1 mid-delivery, restart it; SIGKILL worker 2 later, restart it',
    inject: killWorkersInTurn,
    companion: startWebhookReceivers,
  },
  {
    // The run's traffic is the quiet account; another account floods the queue meanwhile.
    name: 'noisy-neighbour',
    fault:
      'another account floods the API with a backlog of thousands of events from before the load; SIGKILL worker 1 mid-load, restart it; SIGKILL worker 2 later, restart it',
    inject: killWorkersInTurn,
    companion: startNoisyNeighbour,
  },
  {
    // The run's traffic is the account that stays; another is erased while it publishes.
    name: 'account-erasure',
    fault:
      'an operator erases another account half-way through its busy stream; SIGKILL worker 1 mid-load, restart it; SIGKILL worker 2 later, restart it',
    inject: killWorkersInTurn,
    companion: startErasedNeighbour,
  },
  {
    // Last: on code that orders a slug's events slowly, what it leaves unfinished would
    // otherwise slow the scenarios after it.
    name: 'hot-slugs',
    fault: 'SIGKILL worker 1 mid-load, restart it; SIGKILL worker 2 later, restart it',
    shape: {
      quick: { ...HOT, slugs: 3, minEvents: 60, maxEvents: 60 },
      full: { ...HOT, slugs: 4, minEvents: 100, maxEvents: 150 },
    },
    inject: killWorkersInTurn,
  },
];
