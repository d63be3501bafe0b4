import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = `${REPO_ROOT}node_modules/.bin/tsx`;

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion (or kills it after `timeoutMs`), capturing its output. */
export function run(
  command: string,
  args: string[],
  options: { env?: Record<string, string | undefined>; timeoutMs?: number; cwd?: string } = {},
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs a TypeScript entry point of the repository with tsx, as `pnpm dev` would. */
export const runTs = (entry: string, options: Parameters<typeof run>[2] = {}) =>
  run(TSX, [`${REPO_ROOT}${entry}`], options);
