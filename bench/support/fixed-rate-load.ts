// Load at a fixed rate with autocannon (`overallRate`, one request per connection at a
// time), every request a fresh event from a RequestStream.
//
// Why groups: autocannon spreads `overallRate` over its connections as a per-second
// budget each, all of them starting their second together, and a connection spends its
// budget back to back as soon as the second starts. One instance at 2,000/s over 256
// connections thus sends everything in bursts at the top of each second (measured here:
// 9 of 10 10-ms windows empty, then 230 requests in one), and measures how the server
// copes with the burst rather than with the rate. Starting GROUPS instances (two
// connections each at 256) staggered over one second makes the offered load nearly even:
// at 2,000-3,000/s, no empty window and p90 within about 1.6x of the mean. 16 groups
// still left 60% of windows empty; 256 was no smoother than 128 but cost more CPU.
//
// Why a ramp-in: during that first second the instances are still starting and each
// opens its connections, and the server meets the step's first requests (after a reset,
// empty tables). Only requests sent once every instance runs are counted.
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import type { RequestStream } from './event-mix.js';
import { percentile, sortedSamples } from './percentiles.js';

export const GROUPS = 128;
const RAMP_IN_SECONDS = 1;

export interface LoadResult {
  targetRate: number;
  /** Length of the window counted (the ramp-in is not). */
  durationSeconds: number;
  /** Requests sent in the window and answered, whatever the status. */
  answered: number;
  achievedRate: number;
  byStatus: Record<string, number>;
  /** Every 202 of the run, ramp-in included: what the server recorded. */
  acceptedTotal: number;
  /** Answers other than 202 in the window, plus connection errors and timeouts. */
  failures: number;
  errors: number;
  timeouts: number;
  latencyMs: { p50: number; p99: number; p999: number; max: number };
}

interface RunOptions {
  url: string;
  stream: RequestStream;
  connections: number;
  /** Requests a second over all connections; 0 sends as fast as answers come back. */
  rate: number;
  durationSeconds?: number;
  /** Stop after this many requests instead of after a duration. */
  amount?: number;
}

type Recorder = (status: number, responseMs: number) => void;

/** One answer of a run's window: when its request was sent (performance.now()), how long it took. */
export interface Answer {
  sentAt: number;
  ms: number;
  status: number;
}

function runOne(options: RunOptions, record: Recorder) {
  const { stream } = options;
  return new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        method: 'POST',
        connections: options.connections,
        pipelining: 1,
        timeout: 10,
        // How often it checks whether to stop: every instance of a run then ends within
        // 0.1 s of the window's end instead of up to a second later.
        sampleInt: 100,
        ...(options.rate > 0 ? { overallRate: options.rate } : {}),
        ...(options.amount !== undefined
          ? { amount: options.amount }
          : { duration: options.durationSeconds ?? 1 }),
        // Its coordinated-omission correction assumes one request per 1/rate ms on each
        // connection, which is not what it sends: record the measured times as they are.
        ignoreCoordinatedOmission: options.rate > 0,
        requests: [
          {
            setupRequest: (request) => {
              const next = stream.next();
              return {
                ...request,
                headers: { 'content-type': 'application/json', 'x-api-key': next.apiKey },
                body: next.body,
              };
            },
          },
        ],
      },
      (error, result) => (error ? reject(error as Error) : resolve(result)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) =>
      record(statusCode, responseTime),
    );
  });
}

/** Answers by status and their latencies, for requests sent inside [from, to); each into `answers` too, when given. */
function windowRecorder(from: number, to: number, answers?: Answer[]) {
  const statuses = new Map<number, number>();
  const latencies: number[] = [];
  let acceptedTotal = 0;
  const record: Recorder = (status, responseMs) => {
    if (status === 202) acceptedTotal += 1;
    const sentAt = performance.now() - responseMs;
    if (sentAt < from || sentAt >= to) return;
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    latencies.push(responseMs);
    answers?.push({ sentAt, ms: responseMs, status });
  };
  return { record, statuses, latencies, acceptedTotal: () => acceptedTotal };
}

const latencyOf = (sorted: Float64Array): LoadResult['latencyMs'] => ({
  p50: percentile(sorted, 0.5),
  p99: percentile(sorted, 0.99),
  p999: percentile(sorted, 0.999),
  max: sorted[sorted.length - 1] ?? Number.NaN,
});

/** What summarise reads of a run's result. */
type RunCounts = Pick<autocannon.Result, 'errors' | 'timeouts'>;
const NOTHING_SENT: RunCounts = { errors: 0, timeouts: 0 };

function summarise(
  targetRate: number,
  durationSeconds: number,
  results: RunCounts[],
  recorder: ReturnType<typeof windowRecorder>,
): LoadResult {
  const { statuses } = recorder;
  const answered = [...statuses.values()].reduce((sum, n) => sum + n, 0);
  const errors = results.reduce((sum, r) => sum + r.errors, 0);
  return {
    targetRate,
    durationSeconds,
    answered,
    achievedRate: answered / durationSeconds,
    byStatus: Object.fromEntries([...statuses].map(([code, n]) => [String(code), n])),
    acceptedTotal: recorder.acceptedTotal(),
    failures: answered - (statuses.get(202) ?? 0) + errors,
    errors,
    timeouts: results.reduce((sum, r) => sum + r.timeouts, 0),
    latencyMs: latencyOf(sortedSamples(recorder.latencies)),
  };
}

/**
 * `rate` requests a second, counted over `durationSeconds` after a one-second ramp-in,
 * from staggered groups (see above), all of which stop at the end of the window. Each
 * counted answer is also pushed to `answers`, when given: for figures over parts of the run.
 */
export async function runFixedRate(
  url: string,
  stream: RequestStream,
  rate: number,
  durationSeconds: number,
  connections: number,
  answers?: Answer[],
): Promise<LoadResult> {
  const started = performance.now();
  const windowStart = started + RAMP_IN_SECONDS * 1000;
  const windowEnd = windowStart + durationSeconds * 1000;
  const recorder = windowRecorder(windowStart, windowEnd, answers);
  const groups = Math.min(GROUPS, rate, connections);
  const share = (total: number, i: number) =>
    Math.floor(total / groups) + (i < total % groups ? 1 : 0);
  const runs = Array.from({ length: groups }, async (_, i) => {
    await sleep((i * RAMP_IN_SECONDS * 1000) / groups);
    const options = { url, stream, rate: share(rate, i), connections: share(connections, i) };
    const seconds = (windowEnd - performance.now()) / 1000;
    // A machine stalled past the whole window (seen at load averages of 6-8) leaves this
    // group nothing to send: its share is missing from the step, which then fails as it
    // should, instead of autocannon refusing a negative duration and ending the bench.
    if (seconds <= 0) return NOTHING_SENT;
    return runOne({ ...options, durationSeconds: seconds }, recorder.record);
  });
  return summarise(rate, durationSeconds, await Promise.all(runs), recorder);
}

/** `amount` requests as fast as `connections` connections get answers: queue fills. */
export async function runAmount(
  url: string,
  stream: RequestStream,
  amount: number,
  connections: number,
): Promise<LoadResult & { elapsedSeconds: number }> {
  const started = performance.now();
  const recorder = windowRecorder(0, Number.POSITIVE_INFINITY);
  const result = await runOne({ url, stream, rate: 0, connections, amount }, recorder.record);
  const elapsedSeconds = (performance.now() - started) / 1000;
  return { ...summarise(0, elapsedSeconds, [result], recorder), elapsedSeconds };
}

/**
 * Runs of the same rate as one: counts summed, percentiles over every answer (`answers`,
 * the runs' answers arrays together).
 */
export function mergeLoads(runs: LoadResult[], answers: Answer[]): LoadResult {
  const sum = (pick: (run: LoadResult) => number) => runs.reduce((n, run) => n + pick(run), 0);
  const byStatus: Record<string, number> = {};
  for (const run of runs) {
    for (const [code, n] of Object.entries(run.byStatus))
      byStatus[code] = (byStatus[code] ?? 0) + n;
  }
  const durationSeconds = sum((run) => run.durationSeconds);
  return {
    targetRate: runs[0]?.targetRate ?? 0,
    durationSeconds,
    answered: sum((run) => run.answered),
    achievedRate: sum((run) => run.answered) / durationSeconds,
    byStatus,
    acceptedTotal: sum((run) => run.acceptedTotal),
    failures: sum((run) => run.failures),
    errors: sum((run) => run.errors),
    timeouts: sum((run) => run.timeouts),
    latencyMs: latencyOf(sortedSamples(answers.map((answer) => answer.ms))),
  };
}
