import { createWriteStream, type WriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { UsageError } from '../input.js';

/** What became of one line, as the results file records it (one JSON object a line). */
export interface LineResult {
  line: number;
  /** The line's text's digest when it was sent: a line changed since is sent again. */
  hash?: string;
  /** The event's id: accepted (now or on an earlier run), or refused and recorded rejected. */
  id?: string;
  status?: string;
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
}

/**
 * The header and each line's last result of an earlier run over `file`: none when the
 * results file does not exist yet. A results file of another events file is refused
 * rather than mixed with; one of this file before it changed is resumed line by line.
 */
export async function readResults(
  path: string,
  file: string,
): Promise<{ header?: Header; results: Map<number, LineResult> }> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  const results = new Map<number, LineResult>();
  if (text === undefined || text.trim() === '') return { results };
  const [first, ...rest] = text.split('\n');
  const header = JSON.parse(first ?? '{}') as Partial<Header>;
  if (header.file !== file || header.run === undefined)
    throw new UsageError(
      `${path} holds the results of another file; pass --results with a new path to start over`,
    );
  for (const line of rest) {
    if (line.trim() === '') continue;
    // The last line may be cut short by a crash mid-write: its line is sent again.
    let result: LineResult;
    try {
      result = JSON.parse(line) as LineResult;
    } catch {
      continue;
    }
    results.set(result.line, result);
  }
  return { header: { file, run: header.run }, results };
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
