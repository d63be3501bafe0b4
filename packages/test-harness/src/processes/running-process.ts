// One long-running child process of a test or a run: a Node entry point started with this
// Node binary, its output kept as lines or written to a file, stopped with any signal.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO_ROOT } from '../repo-root.js';
import { childEnv } from './child-env.js';
import { OutputLines } from './output-lines.js';

export interface ProcessOptions {
  /** For messages and log file names. */
  name: string;
  /** What follows `node`: its flags, then the entry file (relative to `cwd`). */
  nodeArgs: string[];
  /**
   * The program to run instead of this Node, `nodeArgs` then being its arguments: a
   * process that starts Node elsewhere (`buildah run` in a container).
   */
  command?: string;
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** Where it runs; the repository root by default. */
  cwd?: string;
  /**
   * Output goes straight to this file instead of into `lines`: the parent then spends no
   * time on it, which matters where the parent's event loop is what is measured (the bench).
   */
  logFile?: string;
}

/** Ready once it logs a line matching `line` (output kept as lines), or once GET `url` answers 200. */
export type Readiness = { line: RegExp } | { url: string };

export interface StartOptions extends ProcessOptions {
  ready: Readiness;
  /** 20 s by default. */
  readyTimeoutMs?: number;
}

export interface RunningProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** Every line it wrote to stdout and stderr; empty when output goes to `logFile`. */
  readonly lines: string[];
  readonly logFile: string | undefined;
  /** Whether stop() was called: an exit after that was asked for. */
  readonly stopping: boolean;
  hasExited(): boolean;
  /** The first line matching `pattern`; throws after `timeoutMs` or once it has exited. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends `signal`, then SIGKILL if it is still running after `graceMs`; resolves with its exit code. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | null>;
  /** SIGSTOP for `ms`, then SIGCONT: a process that hangs, then wakes up. */
  freeze(ms: number): Promise<void>;
}

/** One node process with tsx as its loader, for a TypeScript entry point. */
export const typeScriptEntry = (entry: string): string[] =>
  // Not the tsx CLI, which runs node as a child of its own: signals then reach the entry
  // itself, as they do in production.
  ['--import', 'tsx', entry];

/** Spawns the process and returns at once; see startProcess to wait until it is ready. */
export function spawnProcess(options: ProcessOptions): RunningProcess {
  const { name, logFile } = options;
  const sink = logFile === undefined ? 'pipe' : openSync(logFile, 'w');
  const child = spawn(options.command ?? process.execPath, options.nodeArgs, {
    cwd: options.cwd ?? REPO_ROOT,
    env: childEnv(options.env),
    stdio: ['ignore', sink, sink],
  });
  if (typeof sink === 'number') closeSync(sink);
  const output = new OutputLines();
  // A failed spawn (no pid) is thrown below; the event must be handled all the same.
  child.on('error', (error) => output.lines.push(`${name}: ${error.message}`));
  if (child.pid === undefined) throw new Error(`${name} did not start`);
  const pid = child.pid;
  if (child.stdout) output.follow(child.stdout);
  if (child.stderr) output.follow(child.stderr);
  // 'close', not 'exit': by then every line it wrote has been read.
  const closed = new Promise<number | null>((resolve) =>
    child.once('close', (code: number | null) => {
      output.end();
      resolve(code);
    }),
  );
  const hasExited = () => child.exitCode !== null || child.signalCode !== null;
  let stopping = false;

  return {
    name,
    child,
    pid,
    lines: output.lines,
    logFile,
    get stopping() {
      return stopping;
    },
    hasExited,
    waitForLine: (pattern, timeoutMs = 20_000) =>
      logFile === undefined
        ? output.waitFor(pattern, timeoutMs, name)
        : Promise.reject(new Error(`${name} writes to ${logFile}: it has no lines to wait for`)),
    async stop(signal = 'SIGTERM', graceMs = 15_000) {
      stopping = true;
      if (hasExited()) return closed;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      try {
        return await closed;
      } finally {
        clearTimeout(timer);
      }
    },
    async freeze(ms) {
      child.kill('SIGSTOP');
      try {
        await sleep(ms);
      } finally {
        child.kill('SIGCONT');
      }
    },
  };
}

/** Polls `url` until it answers 200; throws if the process exits first or time runs out. */
async function waitForHttpOk(proc: RunningProcess, url: string, timeoutMs: number) {
  const where = proc.logFile === undefined ? '' : `; see ${proc.logFile}`;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.hasExited()) throw new Error(`${proc.name} exited before it was ready${where}`);
    const status = await fetch(url, { signal: AbortSignal.timeout(1_000) })
      .then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      })
      .catch(() => 0);
    if (status === 200) return;
    await sleep(100);
  }
  throw new Error(`${proc.name} was not ready within ${timeoutMs} ms${where}`);
}

async function waitUntilReady(
  proc: RunningProcess,
  ready: Readiness,
  timeoutMs = 20_000,
): Promise<void> {
  if ('url' in ready) await waitForHttpOk(proc, ready.url, timeoutMs);
  else await proc.waitForLine(ready.line, timeoutMs);
}

/**
 * Spawns the process and waits until it is ready; if it never is, kills it and throws.
 * `onSpawn` sees it before it is ready (to stop it, should its start be abandoned).
 */
export async function startProcess(
  options: StartOptions,
  onSpawn?: (proc: RunningProcess) => void,
): Promise<RunningProcess> {
  const proc = spawnProcess(options);
  onSpawn?.(proc);
  try {
    await waitUntilReady(proc, options.ready, options.readyTimeoutMs);
  } catch (error) {
    await proc.stop('SIGKILL');
    throw error;
  }
  return proc;
}
