// What the cli phase (phases/cli.ts) measures, as cli-report.ts and report.ts read it.
import type { CpuUse } from './cpu-meter.js';

export interface PublishRun {
  events: number;
  /** From the first send (the CLI's spawn) to the last 202 (the CLI's exit). */
  acceptSeconds: number;
  acceptRate: number;
  /** From the same start to the last event's `finished_at`. */
  endToEndSeconds: number;
  endToEndRate: number;
  failed: number;
  /** The API's answers to the publish's calls, by status, from its log: 503s were shed. */
  answers: Record<string, number>;
  /** Over the publish, not the drain after it. */
  cpu: CpuUse;
}

export interface CliResult {
  events: number;
  concurrency: number;
  /** Bytes of the events file. */
  fileBytes: number;
  /** The loop before and after the CLI... */
  references: [PublishRun, PublishRun];
  /** ...and their mean rates: the CLI's references. */
  referenceRate: number;
  referenceEndToEndRate: number;
  /** The loop with an Idempotency-Key per call, as the CLI sends. */
  keyed: PublishRun;
  cli: PublishRun & { summarySeconds: number };
  resume: { seconds: number; skipped: number; cpu: CpuUse };
  /** The drain phase's one-worker rate, when it ran in this run. */
  drainRate?: number;
  notes: string[];
  /** How much other work the machine did during the phase, for results/cli.md. */
  machineNotes: string[];
}
