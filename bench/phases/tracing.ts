// What tracing costs. On at 1% (OTEL_TRACES_SAMPLER=parentbased_traceidratio, ratio 0.01,
// exported over OTLP/HTTP to a sink that only counts): the API's accept capacity and one
// worker's drain, against the same processes with tracing off, in turns within one run.
// Off, no SDK is registered and what remains are OpenTelemetry's no-op calls: their cost
// is timed here in the bench's own process, per span, against the worker's time per event.
import { inSpan } from '@ingest/observability';
import type { BenchEnvironment } from '../bench-environment.js';
import { startApi } from '../support/launchers.js';
import { startOtlpSink } from '../support/otlp-sink.js';
import { searchCapacityInTurns, type CapacityResult } from './capacity.js';
import { drainOnce, meanOf, serviceWorkers, type DrainResult } from './drain.js';

export interface TracingResult {
  capacity: { off: CapacityResult; sampled: CapacityResult };
  /** Run in the order off, sampled, sampled, off; `off` and `sampled` are means. */
  drains: {
    offRuns: DrainResult[];
    sampledRuns: DrainResult[];
    off: DrainResult;
    sampled: DrainResult;
  };
  /** What the sink received over the phase. */
  exported: { requests: number; bytes: number };
  /** A no-op span's cost (tracing off), and a plain async call's, in nanoseconds. */
  noopSpanNs: number;
  plainCallNs: number;
}

const SAMPLED_ENV = {
  OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
  OTEL_TRACES_SAMPLER_ARG: '0.01',
};

/** Nanoseconds per call of `call`, over enough calls to see through the timer. */
async function nanosPerCall(call: () => Promise<unknown>, calls = 200_000): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i += 1) await call();
  return Number(process.hrtime.bigint() - started) / calls;
}

export async function measureTracing(
  env: BenchEnvironment,
  serviceCapacity?: number,
): Promise<TracingResult> {
  env.log('tracing: capacity and drain with tracing on at 1% sampling, and off');
  const sink = await startOtlpSink();
  const tracingEnv = { ...SAMPLED_ENV, OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint };
  try {
    const tracedApi = await startApi(env.processes, env.stores, env.options.cpuProfile, undefined, {
      env: tracingEnv,
      name: 'api-traced',
    });
    const startRate = Math.max(
      env.options.plan.searchStartRate,
      Math.round((serviceCapacity ?? 0) * 0.6),
    );
    const [off, sampled] = await searchCapacityInTurns([
      { env, label: 'tracing off', target: env.api, startRate },
      { env, label: 'tracing at 1%', target: tracedApi, startRate },
    ]);
    await env.reset();
    const offDrain = (label: string) => drainOnce(env, 'service', label, serviceWorkers(env, 1));
    const sampledDrain = (label: string) =>
      drainOnce(env, 'service', label, serviceWorkers(env, 1, tracingEnv), {
        fillThrough: tracedApi,
      });
    const off1 = await offDrain('tracing off (1)');
    const sampled1 = await sampledDrain('tracing at 1% (1)');
    const sampled2 = await sampledDrain('tracing at 1% (2)');
    const off2 = await offDrain('tracing off (2)');
    await tracedApi.proc.stop();
    await env.reset();
    const plainCallNs = await nanosPerCall(async () => undefined);
    const noopSpanNs = await nanosPerCall(() => inSpan('bench.noop', {}, async () => undefined));
    return {
      capacity: { off: off!, sampled: sampled! },
      drains: {
        offRuns: [off1, off2],
        sampledRuns: [sampled1, sampled2],
        off: meanOf([off1, off2]),
        sampled: meanOf([sampled1, sampled2]),
      },
      exported: sink.exports(),
      noopSpanNs,
      plainCallNs,
    };
  } finally {
    await sink.close();
  }
}
