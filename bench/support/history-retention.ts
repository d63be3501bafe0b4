// The retention run under load: publishers publish at a fixed rate while the event log's
// own maintenance (maintainPartitions) drops the partitions past the retention period, one
// period a round as the workers do (EVENT_LOG_DROPS_PER_ROUND). What it costs them is read
// three ways: the publishers' accept p99 over each round against every window as long in
// the load before the first (one window alone is a sample of one: a window's tail moved
// 0.5-2x between runs); the locks the drop held and any lock a backend waited for
// (pg_locks, sampled); and each statement's time.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import {
  expiredPartitions,
  listPartitions,
  maintainPartitions,
  type HeldPartition,
} from '@ingest/event-log';
import type { BenchEnvironment } from '../bench-environment.js';
import { describeCpu, type CpuUse } from './cpu-meter.js';
import { createEventStream } from './event-mix.js';
import { runFixedRate, type Answer, type LoadResult } from './fixed-rate-load.js';
import { describeLoad } from './format.js';
import { sampleLocks, timedPool, type LockSampling, type TimedStatement } from './history-locks.js';
import { measureSizes, partitionBytes, type Sizes } from './history-partitions.js';
import { sortedSamples, spreadMs } from './percentiles.js';
import { contentUrl } from './launchers.js';

export const RETENTION_DAYS = 30;
/** Expired periods a round drops: the workers' default, EVENT_LOG_DROPS_PER_ROUND. */
const DROPS_PER_ROUND = 1;
/**
 * Between rounds the workers wait EVENT_LOG_MAINTENANCE_INTERVAL_MS (60 s by default);
 * here a few seconds, so that the ten expired days go within one load.
 */
const ROUND_PAUSE_SECONDS = 3;
/**
 * Load before the first round, cut into windows as long as each round: at 0.1-0.3 s a
 * round, hundreds of windows, whose p99s are the noise a round is compared with.
 */
const BASELINE_SECONDS = 45;
/** The whole load; ten rounds and their pauses must end within it. */
const LOAD_SECONDS = 100;
/** Calls again after a failed one, in a row, as the workers' upkeep would in its next rounds. */
const RETRIES = 2;

interface Round {
  startedAt: number;
  endedAt: number;
  dropped: string[];
  held: HeldPartition[];
  deferred: string[];
  error?: string;
}

/**
 * maintainPartitions, DROPS_PER_ROUND at a time, ROUND_PAUSE_SECONDS apart, until nothing
 * expired is left, RETRIES failures in a row, or `deadline`. A failed call (a lock not had
 * within its lock_timeout, a deadlock) is a finding, not the end of the run: the workers'
 * upkeep would call it again, and what the next call finds is part of what retention does.
 */
async function maintenanceRounds(pool: pg.Pool, deadline: number): Promise<Round[]> {
  const rounds: Round[] = [];
  let failures = 0;
  for (;;) {
    const startedAt = performance.now();
    const outcome = await maintainPartitions(pool, {
      interval: 'day',
      retentionDays: RETENTION_DAYS,
      maxDrops: DROPS_PER_ROUND,
    }).catch((error: unknown) => (error as Error).message);
    if (outcome === undefined) throw new Error('the partition-maintenance lock was held elsewhere');
    const endedAt = performance.now();
    const round =
      typeof outcome === 'string'
        ? { startedAt, endedAt, dropped: [], held: [], deferred: [], error: outcome }
        : { startedAt, endedAt, ...outcome };
    rounds.push(round);
    failures = round.error === undefined ? 0 : failures + 1;
    const done = round.error === undefined && round.deferred.length === 0;
    if (done || failures > RETRIES) return rounds;
    if (performance.now() + ROUND_PAUSE_SECONDS * 1000 > deadline) return rounds;
    await sleep(ROUND_PAUSE_SECONDS * 1000);
  }
}

export interface WindowLatency {
  fromS: number;
  toS: number;
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  failures: number;
}

function windowOf(answers: Answer[], origin: number, from: number, to: number): WindowLatency {
  const inside = answers.filter((a) => a.sentAt >= from && a.sentAt < to);
  const sorted = sortedSamples(inside.map((a) => a.ms));
  return {
    fromS: (from - origin) / 1000,
    toS: (to - origin) / 1000,
    samples: sorted.length,
    ...spreadMs(sorted),
    failures: inside.filter((a) => a.status !== 202).length,
  };
}

/** The publishers' p99 in windows as long as a round, tiling the load before the first round. */
export interface QuietWindows {
  windows: number;
  lengthS: number;
  /** Each window's p99, sorted. */
  p99sMs: number[];
  /** Windows whose p99 is above the round's. */
  higherThanDuring: number;
}

function quietWindows(
  answers: Answer[],
  from: number,
  to: number,
  length: number,
  duringP99Ms: number,
): QuietWindows {
  const p99s: number[] = [];
  for (let end = to; length > 0 && end - length >= from; end -= length) {
    const window = windowOf(answers, from, end - length, end);
    if (window.samples > 0) p99s.push(window.p99Ms);
  }
  return {
    windows: p99s.length,
    lengthS: length / 1000,
    p99sMs: p99s.sort((a, b) => a - b),
    higherThanDuring: p99s.filter((p) => p > duringP99Ms).length,
  };
}

/** One round of the run, as the publishers saw it. */
export interface RoundFigures {
  seconds: number;
  dropped: string[];
  error?: string;
  during: WindowLatency;
  quiet: QuietWindows;
}

export interface RetentionResult {
  retentionDays: number;
  rate: number;
  dropsPerRound: number;
  roundPauseSeconds: number;
  /** The rounds' own time, pauses left out. */
  seconds: number;
  expired: string[];
  /** Each call of maintainPartitions, and the publishers' p99 while it ran against the noise. */
  rounds: RoundFigures[];
  dropped: string[];
  held: string[];
  /** Expired periods still left when the rounds stopped. */
  left: string[];
  /** pg_total_relation_size of the expired partitions, read before the run. */
  expectedDropBytes: number;
  before: Sizes;
  after: Sizes;
  load: LoadResult;
  /** The load before the first round: the window the noise is taken from. */
  baseline: WindowLatency;
  statements: { count: number; longest: TimedStatement[] };
  maintenancePids: number[];
  locks: LockSampling;
  cpu: CpuUse;
  notes: string[];
}

/** A round's figures; its noise is the load from the end of the ramp-in to `quietTo`. */
function roundFigures(
  answers: Answer[],
  origin: number,
  round: Round,
  quietTo: number,
): RoundFigures {
  const during = windowOf(answers, origin, round.startedAt, round.endedAt);
  const length = round.endedAt - round.startedAt;
  return {
    seconds: length / 1000,
    dropped: round.dropped,
    ...(round.error === undefined ? {} : { error: round.error }),
    during,
    quiet: quietWindows(answers, origin + 1000, quietTo, length, during.p99Ms),
  };
}

export async function runRetentionUnderLoad(
  env: BenchEnvironment,
  rate: number,
  liveFromMs: number,
): Promise<RetentionResult> {
  const url = contentUrl(env.api);
  const notes: string[] = [];
  const partitions = await listPartitions(env.db);
  const expired = expiredPartitions(partitions, RETENTION_DAYS, Date.now());
  const live = partitions.filter((p) => p.fromMs !== null && p.fromMs >= liveFromMs);
  const expectedDropBytes = await partitionBytes(env.db, expired);
  const before = await measureSizes(env.db, liveFromMs);
  const expiredDays = expired.filter((p) => p.table === 'webhook_logs').length;
  env.log(
    `retention: ${rate}/s of article.create for ${LOAD_SECONDS} s; after ${BASELINE_SECONDS} s, ` +
      `maintainPartitions with ${RETENTION_DAYS} days drops ${expiredDays} expired days, ` +
      `${DROPS_PER_ROUND} a round, ${ROUND_PAUSE_SECONDS} s apart`,
  );

  const statements: TimedStatement[] = [];
  const maintenancePids: number[] = [];
  const pool = timedPool(env.stores.databaseUrl, statements, maintenancePids);
  const sampler = new pg.Client({ connectionString: env.stores.databaseUrl });
  await sampler.connect();
  const locks = sampleLocks(
    sampler,
    live.map((p) => p.name),
  );
  const meter = await env.cpuMeter([{ name: 'service', pid: env.api.proc.pid }]);
  const answers: Answer[] = [];
  const origin = performance.now();
  const stream = createEventStream(env.keys, env.tag('retention'), 'creates');
  const loadRun = runFixedRate(
    url,
    stream,
    rate,
    LOAD_SECONDS,
    env.options.plan.connections,
    answers,
  );
  try {
    await sleep((1 + BASELINE_SECONDS) * 1000);
    const loadEnd = origin + (1 + LOAD_SECONDS) * 1000;
    const rounds = await maintenanceRounds(pool, loadEnd - 1000);
    const after = await measureSizes(env.db, liveFromMs);
    const load = await loadRun;
    const cpu = await meter.stop();
    const lockSampling = await locks.stop();
    env.processes.assertNoCrash();

    const last = rounds.at(-1);
    for (const [i, round] of rounds.entries()) {
      if (round.error !== undefined)
        notes.push(`maintainPartitions round ${i + 1} FAILED: ${round.error}`);
    }
    if (last !== undefined && last.endedAt > loadEnd) {
      notes.push(`The last round outlasted the ${LOAD_SECONDS} s load: its end ran unloaded.`);
    }
    const left = expiredPartitions(await listPartitions(env.db), RETENTION_DAYS, Date.now())
      .filter((p) => p.table === 'webhook_logs')
      .map((p) => p.name);
    const firstStart = rounds[0]?.startedAt ?? origin;
    const result: RetentionResult = {
      retentionDays: RETENTION_DAYS,
      rate,
      dropsPerRound: DROPS_PER_ROUND,
      roundPauseSeconds: ROUND_PAUSE_SECONDS,
      seconds: rounds.reduce((sum, r) => sum + (r.endedAt - r.startedAt) / 1000, 0),
      expired: expired.map((p) => p.name),
      rounds: rounds.map((round) => roundFigures(answers, origin, round, firstStart)),
      dropped: rounds.flatMap((r) => r.dropped),
      held: (last?.held ?? []).map((h) => `${h.name}: ${h.reason}`),
      left,
      expectedDropBytes,
      before,
      after,
      load,
      baseline: windowOf(answers, origin, origin + 1000, firstStart),
      statements: {
        count: statements.length,
        longest: [...statements].sort((a, b) => b.ms - a.ms).slice(0, 10),
      },
      maintenancePids,
      locks: lockSampling,
      cpu,
      notes,
    };
    env.log(
      `  maintainPartitions: ${rounds.length} round(s), ${result.seconds.toFixed(1)} s in all, ` +
        `dropped ${result.dropped.length}, ${rounds.filter((r) => r.error).length} failed, ` +
        `held ${result.held.length}, left ${left.length}\n  load ${describeLoad(load)}\n      ` +
        describeCpu(cpu),
    );
    return result;
  } finally {
    // On a failure, the load still ends before the connections close.
    await Promise.allSettled([loadRun, locks.stop()]);
    await sampler.end();
    await pool.end();
  }
}
