// What the batches phase (phases/batches.ts) measures, as batch-report.ts and report.ts read it.
import type { DrainResult } from '../phases/drain.js';
import type { PublishRun } from './cli-result.js';
import type { PacedRun } from './paced-api.js';

/** One open- or closed-loop run of the paced generator, with the CPU it took. */
export type BatchLoad = PacedRun;

export interface BatchCliRun {
  /** The flags it ran with; `--batch-size` only when the built CLI has it. */
  args: string[];
  batchSizeFlag: boolean;
  run: PublishRun;
  /** One worker's drain of as many creates, queued ahead, before and after the CLI. */
  drains: [DrainResult, DrainResult];
  drainRate: number;
}

export interface BatchesResult {
  batchSize: number;
  connections: number;
  /** The single-event capacity search's figure (capacity.ts), and which phase measured it. */
  capacity: { rate: number; measuredBy: 'capacity' | 'batches' };
  /** Closed loops from `connections` connections, keyed, in turns: batches, then single events. */
  batchRuns: BatchLoad[];
  singleRuns: BatchLoad[];
  /** Their mean accepted events a second. */
  batchRate: number;
  singleRate: number;
  /** Open loop of batch calls at half `batchRate`, in calls a second. */
  latency: BatchLoad & { callRate: number };
  cli: BatchCliRun;
}
