// Commands the smoke test runs to completion: failing, one names itself and its last lines.
import { runCommand, type Finished } from '@ingest/test-harness';

export interface CommandOptions {
  /** Throw when it exits non-zero; true by default. */
  check?: boolean;
  /** 10 minutes by default: image builds install packages. */
  timeoutMs?: number;
}

const lastLines = (text: string, count: number): string =>
  text.trimEnd().split('\n').slice(-count).join('\n');

export async function run(
  command: string,
  args: string[],
  options: CommandOptions = {},
): Promise<Finished> {
  const finished = await runCommand(command, args, { timeoutMs: options.timeoutMs ?? 600_000 });
  if (finished.code !== 0 && options.check !== false) {
    const output = lastLines(`${finished.stdout}\n${finished.stderr}`, 30);
    throw new Error(`${command} ${args.join(' ')} exited ${finished.code}:\n${output}`);
  }
  return finished;
}

export const buildah = (args: string[], options?: CommandOptions): Promise<Finished> =>
  run('buildah', args, options);
