// Runs a load generator as a process of its own (load-child.ts) and reads its outcome:
// for a phase that measures something else in the runner, or whose generator would
// otherwise share the runner's event loop with what it measures.
import { runTsEntry } from '@ingest/test-harness';
import type { PacedOutcome, PacedSpec } from './paced-load.js';

export type LoadSpec =
  | { kind: 'poll'; url: string; apiKey: string; connections: number; seconds: number }
  | {
      /**
       * article.update of the slugs `${slugPrefix}-${first}` to `-${first + count - 1}` in
       * turn, from these keys in turn, at `rate` a second. (A range, not a list: a
       * process's arguments are bounded.)
       */
      kind: 'update';
      url: string;
      apiKeys: string[];
      slugs: { prefix: string; first: number; count: number };
      rate: number;
      seconds: number;
      connections: number;
    }
  | ({ kind: 'paced' } & PacedSpec);

export interface LoadOutcome {
  answered: number;
  byStatus: Record<string, number>;
  perSecond: number;
  latencyMs: { p50: number; p99: number };
}

type OutcomeOf<Spec extends LoadSpec> = Spec extends { kind: 'paced' } ? PacedOutcome : LoadOutcome;

export async function runLoadChild<Spec extends LoadSpec>(spec: Spec): Promise<OutcomeOf<Spec>> {
  const { code, stdout, stderr } = await runTsEntry('bench/support/load-child.ts', {
    args: [JSON.stringify(spec)],
    timeoutMs: (spec.seconds + ('rampSeconds' in spec ? spec.rampSeconds : 0) + 60) * 1000,
  });
  const last = stdout.trim().split('\n').at(-1) ?? '';
  if (code !== 0 || !last.startsWith('{')) {
    throw new Error(`load child (${spec.kind}) failed with ${code}: ${stderr.slice(-500)}`);
  }
  return JSON.parse(last) as OutcomeOf<Spec>;
}
