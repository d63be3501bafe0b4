import { createWriteStream, type WriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { PublishManyResult } from '../../settle-batch.js';
import { UsageError } from '../input.js';

/** What became of one line, as the results file records it (one JSON object a line). */
export interface LineResult {
  /** Where the line was in the file when this was written: shown, never matched on. */
  line: number;
  /** The line's text's digest: with `nth`, what names the line (see lineId). */
  hash?: string;
  /** The line's occurrence among the file's lines of the same text, 0 for the first. */
  nth?: number;
  /** The event's id: accepted (now or on an earlier run), or refused and recorded rejected. */
  id?: string;
  status?: string;
  /** When the service received the accepted event: how far back its outcome is looked for. */
  receivedAt?: string;
  /** The service already had the line's key: this is the event of an earlier send. */
  replayed?: boolean;
  /** Why the service refused the line: it was not accepted. */
  error?: {
    status: number;
    code: string;
    message: string;
    errors?: Array<{ path: string; message: string }>;
    requestId?: string;
  };
  /** Why the accepted event failed when the worker applied it. */
  outcome?: { code: string; message: string };
}

/** The first line of a results file: the events file it is for and the keys' run. */
export interface Header {
  file: string;
  /** Names the lines' Idempotency-Keys: the events file's digest when the run began. */
  run: string;
  /**
   * 'text': the run keys a line by its text and occurrence (lineKey). Absent, the run
   * keys it by its number (numberedLineKey), as the results files of older CLIs do.
   */
  keyedBy?: 'text';
}

/** What names a line across edits of the file: its text's digest and its occurrence. */
export const lineId = (hash: string, nth: number): string => `${hash}/${nth}`;

/**
 * The header and each line's last result of an earlier run over `file`, by lineId: none
 * when the results file does not exist yet. A results file of another events file is
 * refused rather than mixed with; one of this file before it changed is resumed line by line.
 */
export async function readResults(
  path: string,
  file: string,
): Promise<{ header?: Header; results: Map<string, LineResult> }> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  const results = new Map<string, LineResult>();
  if (text === undefined || text.trim() === '') return { results };
  const [first, ...rest] = text.split('\n');
  const header = JSON.parse(first ?? '{}') as Partial<Header>;
  if (header.file !== file || header.run === undefined)
    throw new UsageError(
      `${path} holds the results of another file; pass --results with a new path to start over`,
    );
  // Results without `nth` (an older CLI's) name their line by number alone.
  const numbered = new Map<number, LineResult & { hash: string }>();
  for (const line of rest) {
    if (line.trim() === '') continue;
    // The last line may be cut short by a crash mid-write: its line is sent again.
    let result: LineResult;
    try {
      result = JSON.parse(line) as LineResult;
    } catch {
      continue;
    }
    if (result.hash === undefined) continue;
    if (result.nth === undefined) numbered.set(result.line, { ...result, hash: result.hash });
    else results.set(lineId(result.hash, result.nth), result);
  }
  // Their occurrence is their place by number among the lines of their text, which is the
  // line's occurrence while the file is unchanged. A result with `nth` is always the later.
  const seen = new Map<string, number>();
  for (const [, result] of [...numbered].sort(([a], [b]) => a - b)) {
    const nth = seen.get(result.hash) ?? 0;
    seen.set(result.hash, nth + 1);
    const id = lineId(result.hash, nth);
    if (!results.has(id)) results.set(id, { ...result, nth });
  }
  const keyedBy = header.keyedBy === 'text' ? { keyedBy: 'text' as const } : {};
  return { header: { file, run: header.run, ...keyedBy }, results };
}

/** A line's result as the service answered it: an accepted line has its event's id. */
export function lineResult(
  line: { line: number; hash: string; nth: number },
  result: PublishManyResult,
): LineResult {
  if (result.ok)
    return {
      ...line,
      id: result.receipt.id,
      status: result.receipt.status,
      receivedAt: result.receipt.receivedAt,
      ...(result.replayed ? { replayed: true } : {}),
    };
  const { status, code, message, errors, requestId } = result.error;
  return {
    ...line,
    ...(result.id === undefined ? {} : { id: result.id }),
    error: {
      status,
      code,
      message,
      ...(errors.length === 0 ? {} : { errors }),
      ...(requestId === undefined ? {} : { requestId }),
    },
  };
}

/** Appends results, after a header naming the file when the results file is new. */
export class ResultsWriter {
  private readonly stream: WriteStream;

  constructor(path: string, header: Header, isNew: boolean) {
    this.stream = createWriteStream(path, { flags: 'a' });
    if (isNew) this.stream.write(`${JSON.stringify(header)}\n`);
  }

  write(result: LineResult): void {
    this.stream.write(`${JSON.stringify(result)}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.stream.end((error?: Error | null) => (error ? reject(error) : resolve()));
    });
  }
}
