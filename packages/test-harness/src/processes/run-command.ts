import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { REPO_ROOT } from '../repo-root.js';
import { childEnv } from './child-env.js';

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Added to this process's environment. */
  env?: Record<string, string | undefined>;
  /** SIGKILL after this long; 30 s by default. */
  timeoutMs?: number;
  /** The repository root by default. */
  cwd?: string;
}

/** Runs a command to completion (or kills it after `timeoutMs`), capturing its output. */
export function runCommand(
  command: string,
  args: string[],
  options: RunOptions = {},
): Promise<Finished> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? REPO_ROOT,
      env: childEnv(options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/** Runs a TypeScript entry point of the repository with the tsx CLI, as `pnpm dev` would. */
export const runTsEntry = (entry: string, options: RunOptions & { args?: string[] } = {}) =>
  runCommand(
    `${REPO_ROOT}node_modules/.bin/tsx`,
    [resolve(REPO_ROOT, entry), ...(options.args ?? [])],
    options,
  );
