// The child processes of a run (the fault suite's API and workers, the bench's measured
// processes): started until ready, watched for exits nobody asked for, all stopped at the
// end, their output kept for the report.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startProcess, type RunningProcess, type StartOptions } from './running-process.js';

export interface ProcessGroupOptions {
  /** Where the group says what happened to its processes. */
  log?: (line: string) => void;
  /** Each process writes its output to `<logDir>/<name>.log` instead of into its lines. */
  logDir?: string;
  /**
   * How many times a start is tried. On a loaded machine a start can miss its deadline;
   * the process it left is killed before the next try.
   */
  startAttempts?: number;
  /** Called with each process's pid as soon as it is spawned (the bench's CPU ceiling). */
  onSpawn?: (pid: number) => void;
}

export class ProcessGroup {
  /** Exits nobody asked for, each with its last lines or where its log is. */
  readonly crashes: string[] = [];
  /** Every process that became ready, stopped or not, in start order. */
  readonly started: RunningProcess[] = [];
  /** Everything not yet exited, including processes still starting. */
  private readonly running = new Set<RunningProcess>();
  private readonly log: (line: string) => void;

  constructor(private readonly options: ProcessGroupOptions = {}) {
    this.log = options.log ?? (() => {});
    if (options.logDir !== undefined) mkdirSync(options.logDir, { recursive: true });
  }

  /** Starts a process and waits until it is ready, trying again as `startAttempts` allows. */
  async start(options: StartOptions): Promise<RunningProcess> {
    const attempts = this.options.startAttempts ?? 1;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.startOnce(options);
      } catch (error) {
        if (attempt >= attempts) throw error;
        const reason = (error as Error).message.split('\n')[0];
        this.log(`${options.name} did not start (${reason}); trying again`);
      }
    }
  }

  /** Stops every process still running: `signal`, then SIGKILL after `graceMs`. */
  async stopAll(signal: NodeJS.Signals = 'SIGTERM', graceMs = 5_000): Promise<void> {
    await Promise.all([...this.running].map((proc) => proc.stop(signal, graceMs).catch(() => {})));
  }

  /** Throws if any process exited unasked: whatever it was part of cannot be trusted. */
  assertNoCrash(): void {
    if (this.crashes.length > 0) throw new Error(this.crashes.join('\n'));
  }

  /** Every started process with everything it logged. */
  logs(): Array<{ name: string; lines: string[] }> {
    return this.started.map((proc) => ({ name: proc.name, lines: proc.lines }));
  }

  /** Log lines, over every started process, that match `pattern`. */
  linesMatching(pattern: RegExp): string[] {
    return this.started.flatMap((proc) => proc.lines.filter((line) => pattern.test(line)));
  }

  private async startOnce(options: StartOptions): Promise<RunningProcess> {
    const { logDir } = this.options;
    const logFile = logDir === undefined ? undefined : join(logDir, `${options.name}.log`);
    let ready = false;
    const proc = await startProcess({ ...options, logFile }, (spawned) => {
      // Tracked from the start, so that stopAll reaches a process still starting.
      this.running.add(spawned);
      this.options.onSpawn?.(spawned.pid);
      spawned.child.once('close', (code, signal) => {
        this.running.delete(spawned);
        // An exit while starting is the start's failure, and reported as such.
        if (ready && !spawned.stopping) this.recordCrash(spawned, code, signal);
      });
    });
    ready = true;
    this.started.push(proc);
    return proc;
  }

  private recordCrash(proc: RunningProcess, code: number | null, signal: string | null): void {
    const how = `${proc.name} exited by itself (code ${code}, signal ${signal})`;
    const evidence =
      proc.logFile === undefined
        ? `:\n    ${proc.lines.slice(-8).join('\n    ')}`
        : `; see ${proc.logFile}`;
    this.crashes.push(how + evidence);
    this.log(`!! ${how}`);
  }
}
