// Child processes of a run: each writes its output to its own file under results/logs
// (so the runner's event loop, which also drives the load, never spends time on their
// logs), is watched for exits nobody asked for, and is killed on the way out.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BENCH_DIR, REPO_ROOT } from './paths.js';

export const LOG_DIR = join(BENCH_DIR, 'results/logs');

export interface BenchProcess {
  name: string;
  child: ChildProcess;
  pid: number;
  logPath: string;
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

export class ProcessGroup {
  private readonly running = new Set<BenchProcess>();
  /** Exits nobody asked for; the runner fails the phase that saw one. */
  readonly crashes: string[] = [];

  constructor() {
    mkdirSync(LOG_DIR, { recursive: true });
  }

  start(name: string, args: string[], env: Record<string, string>): BenchProcess {
    const logPath = join(LOG_DIR, `${name}.log`);
    const fd = openSync(logPath, 'w');
    const child = spawn(process.execPath, args, {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    if (child.pid === undefined) throw new Error(`${name} did not start`);
    let stopping = false;
    const proc: BenchProcess = {
      name,
      child,
      pid: child.pid,
      logPath,
      stop: async (graceMs = 15_000) => {
        stopping = true;
        this.running.delete(proc);
        if (exited(child)) return;
        const gone = once(child, 'exit');
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await gone;
        clearTimeout(timer);
      },
    };
    child.once('exit', (code, signal) => {
      this.running.delete(proc);
      if (!stopping)
        this.crashes.push(`${name} exited by itself (${signal ?? code}); see ${logPath}`);
    });
    this.running.add(proc);
    return proc;
  }

  /** On the way out, success or not: a short grace, then SIGKILL. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.running].map((proc) => proc.stop(5_000).catch(() => {})));
  }

  /** Throws if any process exited unasked: the figures of a phase that lost one are void. */
  assertNoCrash(): void {
    if (this.crashes.length > 0) throw new Error(this.crashes.join('\n'));
  }
}

/** Polls an HTTP readiness probe until it answers 200, the process exits, or time runs out. */
export async function waitUntilReady(proc: BenchProcess, url: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited(proc.child))
      throw new Error(`${proc.name} exited before it was ready; see ${proc.logPath}`);
    const status = await fetch(url, { signal: AbortSignal.timeout(1_000) })
      .then((response) => response.status)
      .catch(() => 0);
    if (status === 200) return;
    await sleep(100);
  }
  throw new Error(`${proc.name} was not ready within ${timeoutMs} ms; see ${proc.logPath}`);
}
