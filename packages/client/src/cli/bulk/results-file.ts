import { createWriteStream, type WriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { UsageError } from '../input.js';

/** What became of one line, as the results file records it (one JSON object a line). */
export interface LineResult {
  line: number;
  /** The event's id, when the service accepted it (now or on an earlier run). */
  id?: string;
  status?: string;
  /** The service already had the line's key: this is the event of an earlier send. */
  replayed?: boolean;
  error?: { status: number; code: string; message: string; requestId?: string };
}

interface Header {
  file: string;
  digest: string;
}

/**
 * The results of an earlier run over the same file (same digest): each line's last
 * result. None when the results file does not exist yet. A results file of another file,
 * or of this file before it changed, is refused rather than mixed with.
 */
export async function readResults(path: string, digest: string): Promise<Map<number, LineResult>> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  const results = new Map<number, LineResult>();
  if (text === undefined || text.trim() === '') return results;
  const [first, ...rest] = text.split('\n');
  const header = JSON.parse(first ?? '{}') as Partial<Header>;
  if (header.digest !== digest)
    throw new UsageError(
      `${path} holds the results of another file, or of this one before it changed; ` +
        'pass --results with a new path to start over',
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
  return results;
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
