import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { text } from 'node:stream/consumers';

/**
 * A path as the user typed it, from where they typed it: `pnpm ingest` runs in the
 * repository root, and tells the directory it was called from in INIT_CWD.
 */
export const userPath = (path: string): string =>
  isAbsolute(path) ? path : resolve(process.env.INIT_CWD ?? process.cwd(), path);

/** `--data` (or `flag`): JSON inline, `@file` for a file's, or `-` for standard input's. */
export async function readJsonArgument(value: string, flag = '--data'): Promise<unknown> {
  const source =
    value === '-'
      ? await text(process.stdin)
      : value.startsWith('@')
        ? await readFile(userPath(value.slice(1)), 'utf8')
        : value;
  try {
    return JSON.parse(source);
  } catch (error) {
    throw new UsageError(`${flag} is not JSON: ${(error as Error).message}`);
  }
}

/** A mistake in how the command was called: exit code 2, no stack. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
