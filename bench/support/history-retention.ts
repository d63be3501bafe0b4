// The retention run under load: publishers publish at a fixed rate while the event log's
// own maintenance (maintainPartitions) drops the partitions past the retention period.
// What it costs them is read three ways: a probe publisher's latency in the window of the
// drop against every window as long in the load before it (one window alone is a sample of
// one: its max moved 0.5-2x between runs); the locks the drop held and any lock a backend
// waited for (pg_locks, sampled); and each statement's time.
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
import { createEventStream, type RequestStream } from './event-mix.js';
import { runFixedRate, type LoadResult } from './fixed-rate-load.js';
import { describeLoad } from './format.js';
import { sampleLocks, timedPool, type LockSampling, type TimedStatement } from './history-locks.js';
import { measureSizes, partitionBytes, type Sizes } from './history-partitions.js';
import { percentile, sortedSamples } from './percentiles.js';

export const RETENTION_DAYS = 30;
/**
 * Load before the maintenance starts, cut into windows as long as the maintenance took:
 * at about 1.2 s a run, some 35 windows, whose maxima are the noise it is compared with.
 */
const BASELINE_SECONDS = 45;
/** The whole load; the maintenance must end within it (under 2 s at 200,000 events in trials). */
const LOAD_SECONDS = 90;
/** The probe publisher's rate, besides the load: each of its requests is timed apart. */
const PROBE_RATE = 50;
const PROBE_CLIENTS = 5;

interface ProbeSample {
  sentAt: number;
  ms: number;
  ok: boolean;
}

/** `rate` article.create a second from PROBE_CLIENTS clients, one request at a time each. */
function startProbe(url: string, stream: RequestStream, rate: number) {
  const samples: ProbeSample[] = [];
  const intervalMs = (PROBE_CLIENTS * 1000) / rate;
  let stopped = false;
  const client = async (offset: number) => {
    await sleep(offset);
    while (!stopped) {
      const sentAt = performance.now();
      const request = stream.next();
      let ok = false;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': request.apiKey },
          body: request.body,
          signal: AbortSignal.timeout(10_000),
        });
        await response.arrayBuffer();
        ok = response.status === 202;
      } catch {
        ok = false;
      }
      samples.push({ sentAt, ms: performance.now() - sentAt, ok });
      await sleep(Math.max(0, intervalMs - (performance.now() - sentAt)));
    }
  };
  const clients = Array.from({ length: PROBE_CLIENTS }, (_, i) =>
    client((i * intervalMs) / PROBE_CLIENTS),
  );
  return {
    async stop(): Promise<ProbeSample[]> {
      stopped = true;
      await Promise.all(clients);
      return samples;
    },
  };
}

/** Calls after the first that failed, as the workers' upkeep would in its next rounds. */
const RETRIES = 2;

interface Round {
  seconds: number;
  dropped: string[];
  held: HeldPartition[];
  error?: string;
}

/**
 * maintainPartitions, and again at once if it failed (a lock not had within its
 * lock_timeout, a deadlock), at most RETRIES times: the workers' upkeep would call it again
 * a minute later, and what a second call finds (tables a failed one left detached) is part
 * of what retention does. A failure is a finding, not the end of the run.
 */
async function maintenanceRounds(pool: pg.Pool): Promise<Round[]> {
  const rounds: Round[] = [];
  do {
    const started = performance.now();
    const outcome = await maintainPartitions(pool, {
      interval: 'day',
      retentionDays: RETENTION_DAYS,
    }).catch((error: unknown) => (error as Error).message);
    if (outcome === undefined) throw new Error('the partition-maintenance lock was held elsewhere');
    const seconds = (performance.now() - started) / 1000;
    rounds.push(
      typeof outcome === 'string'
        ? { seconds, dropped: [], held: [], error: outcome }
        : { seconds, dropped: outcome.dropped, held: outcome.held },
    );
  } while (rounds.at(-1)?.error !== undefined && rounds.length <= RETRIES);
  return rounds;
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

function windowOf(samples: ProbeSample[], origin: number, from: number, to: number): WindowLatency {
  const inside = samples.filter((s) => s.sentAt >= from && s.sentAt < to);
  const sorted = sortedSamples(inside.map((s) => s.ms));
  return {
    fromS: (from - origin) / 1000,
    toS: (to - origin) / 1000,
    samples: sorted.length,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted[sorted.length - 1] ?? Number.NaN,
    failures: inside.filter((s) => !s.ok).length,
  };
}

/**
 * The probe's latency in windows as long as the maintenance, tiling the load before it
 * back from its start (the first second of load, its warm-up, left out).
 */
export interface QuietWindows {
  windows: number;
  lengthS: number;
  /** Each window's max, sorted. */
  maximaMs: number[];
  /** Windows whose max is above the max while the maintenance ran. */
  higherThanDuring: number;
}

function quietWindows(
  samples: ProbeSample[],
  origin: number,
  started: number,
  ended: number,
  duringMaxMs: number,
): QuietWindows {
  const length = ended - started;
  const maxima: number[] = [];
  for (let to = started; length > 0 && to - length >= origin + 1000; to -= length) {
    const window = windowOf(samples, origin, to - length, to);
    if (window.samples > 0) maxima.push(window.maxMs);
  }
  return {
    windows: maxima.length,
    lengthS: length / 1000,
    maximaMs: maxima.sort((a, b) => a - b),
    higherThanDuring: maxima.filter((m) => m > duringMaxMs).length,
  };
}

export interface RetentionResult {
  retentionDays: number;
  rate: number;
  /** maintainPartitions, start to end. */
  seconds: number;
  expired: string[];
  /** Each call of maintainPartitions: a failed one is called again (see maintenanceRounds). */
  rounds: Array<{ seconds: number; dropped: number; error?: string }>;
  dropped: string[];
  held: string[];
  /** pg_total_relation_size of the expired partitions, read before the run. */
  expectedDropBytes: number;
  before: Sizes;
  after: Sizes;
  load: LoadResult;
  probe: {
    rate: number;
    before: WindowLatency;
    during: WindowLatency;
    /** The noise: windows as long as `during` before it, same load, no maintenance. */
    quiet: QuietWindows;
    failures: number;
  };
  statements: { count: number; longest: TimedStatement[] };
  maintenancePids: number[];
  locks: LockSampling;
  cpu: CpuUse;
  notes: string[];
}

export async function runRetentionUnderLoad(
  env: BenchEnvironment,
  rate: number,
  liveFromMs: number,
): Promise<RetentionResult> {
  const url = `${env.api.baseUrl}/api/webhooks/content`;
  const notes: string[] = [];
  const partitions = await listPartitions(env.db);
  const expired = expiredPartitions(partitions, RETENTION_DAYS, Date.now());
  const live = partitions.filter((p) => p.fromMs !== null && p.fromMs >= liveFromMs);
  const expectedDropBytes = await partitionBytes(env.db, expired);
  const before = await measureSizes(env.db, liveFromMs);
  env.log(
    `retention: ${rate}/s of article.create for ${LOAD_SECONDS} s; after ${BASELINE_SECONDS} s, ` +
      `maintainPartitions with ${RETENTION_DAYS} days drops ${expired.length} partitions`,
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
  const origin = performance.now();
  const probe = startProbe(
    url,
    createEventStream(env.keys, env.tag('probe'), 'creates'),
    PROBE_RATE,
  );
  const stream = createEventStream(env.keys, env.tag('retention'), 'creates');
  const loadRun = runFixedRate(url, stream, rate, LOAD_SECONDS, env.options.plan.connections);
  try {
    await sleep((1 + BASELINE_SECONDS) * 1000);
    const started = performance.now();
    const rounds = await maintenanceRounds(pool);
    const ended = performance.now();
    const report = {
      dropped: rounds.flatMap((r) => r.dropped),
      held: rounds.at(-1)?.held ?? [],
    };
    for (const [i, round] of rounds.entries()) {
      if (round.error !== undefined)
        notes.push(`maintainPartitions round ${i + 1} FAILED: ${round.error}`);
    }
    const after = await measureSizes(env.db, liveFromMs);
    const load = await loadRun;
    const samples = await probe.stop();
    const cpu = await meter.stop();
    const lockSampling = await locks.stop();
    env.processes.assertNoCrash();

    const length = ended - started;
    const during = windowOf(samples, origin, started, ended);
    const baselineFrom = Math.max(origin + 1000, started - length);
    if (started - baselineFrom < length) {
      notes.push(
        `The retention run (${(length / 1000).toFixed(1)} s) outlasted the ${BASELINE_SECONDS} s ` +
          'of load before it: the window before is shorter than the one during.',
      );
    }
    if (ended > origin + (1 + LOAD_SECONDS) * 1000) {
      notes.push(`The retention run outlasted the ${LOAD_SECONDS} s load: its end ran unloaded.`);
    }
    const result: RetentionResult = {
      retentionDays: RETENTION_DAYS,
      rate,
      seconds: length / 1000,
      expired: expired.map((p) => p.name),
      rounds: rounds.map(({ seconds, error, dropped }) => ({
        seconds,
        dropped: dropped.length,
        ...(error === undefined ? {} : { error }),
      })),
      dropped: report.dropped,
      held: report.held.map((h) => `${h.name}: ${h.reason}`),
      expectedDropBytes,
      before,
      after,
      load,
      probe: {
        rate: PROBE_RATE,
        before: windowOf(samples, origin, baselineFrom, started),
        during,
        quiet: quietWindows(samples, origin, started, ended, during.maxMs),
        failures: samples.filter((s) => !s.ok).length,
      },
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
      `  maintainPartitions: ${result.seconds.toFixed(1)} s in ${rounds.length} round(s), ` +
        `dropped ${report.dropped.length}, ${rounds.filter((r) => r.error).length} failed, ` +
        `held ${report.held.length}\n  load ${describeLoad(load)}\n      ${describeCpu(cpu)}`,
    );
    return result;
  } finally {
    // On a failure, the load and the probe still end before the connections close.
    await Promise.allSettled([loadRun, probe.stop(), locks.stop()]);
    await sampler.end();
    await pool.end();
  }
}
