// A load generator in a process of its own, for a phase that measures something else in
// the runner (the fairness phase times a quiet account's calls there): its event loop
// then adds nothing to what the runner measures. One run, then one JSON line on stdout.
//
//   tsx bench/support/load-child.ts '{"kind":"poll", ...}' (see load-children.ts)
import { runClosedLoopReads } from './closed-loop-reads.js';
import { runFixedRate } from './fixed-rate-load.js';
import type { LoadOutcome, LoadSpec } from './load-children.js';
import { runPaced, type PacedOutcome } from './paced-load.js';

async function run(spec: LoadSpec): Promise<LoadOutcome | PacedOutcome> {
  if (spec.kind === 'paced') return runPaced(spec);
  if (spec.kind === 'poll') {
    const load = await runClosedLoopReads(
      spec.url,
      { 'x-api-key': spec.apiKey },
      spec.connections,
      spec.seconds,
    );
    return {
      answered: load.answered,
      byStatus: load.byStatus,
      perSecond: load.answered / load.seconds,
      latencyMs: load.latencyMs,
    };
  }
  let n = 0;
  const stream = {
    next() {
      n += 1;
      const { prefix, first, count } = spec.slugs;
      const slug = `${prefix}-${first + (n % count)}`;
      return {
        apiKey: spec.apiKeys[n % spec.apiKeys.length] ?? '',
        body: JSON.stringify({ event: 'article.update', data: { slug, title: `Revised ${n}` } }),
      };
    },
  };
  const load = await runFixedRate(spec.url, stream, spec.rate, spec.seconds, spec.connections);
  return {
    answered: load.answered,
    byStatus: load.byStatus,
    perSecond: load.achievedRate,
    latencyMs: { p50: load.latencyMs.p50, p99: load.latencyMs.p99 },
  };
}

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
console.log(JSON.stringify(await run(spec)));
