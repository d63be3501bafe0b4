// Reads in a closed loop, as a client polling a receipt does: each connection sends its
// next GET as soon as the last is answered, whatever the answer.
import autocannon from 'autocannon';
import { percentile, sortedSamples } from './percentiles.js';

export interface ReadLoad {
  connections: number;
  seconds: number;
  answered: number;
  byStatus: Record<string, number>;
  /** 200 answers a second. */
  okPerSecond: number;
  errors: number;
  latencyMs: { p50: number; p99: number };
}

export async function runClosedLoopReads(
  url: string,
  headers: Record<string, string>,
  connections: number,
  seconds: number,
): Promise<ReadLoad> {
  const byStatus = new Map<number, number>();
  const latencies: number[] = [];
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { url, method: 'GET', headers, connections, pipelining: 1, duration: seconds, timeout: 10 },
      (error, done) => (error ? reject(error as Error) : resolve(done)),
    );
    instance.on('response', (_client, status, _bytes, responseMs) => {
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      latencies.push(responseMs);
    });
  });
  const elapsed = (performance.now() - started) / 1000;
  const sorted = sortedSamples(latencies);
  return {
    connections,
    seconds: elapsed,
    answered: latencies.length,
    byStatus: Object.fromEntries([...byStatus].map(([status, n]) => [String(status), n])),
    okPerSecond: (byStatus.get(200) ?? 0) / elapsed,
    errors: result.errors,
    latencyMs: { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) },
  };
}
