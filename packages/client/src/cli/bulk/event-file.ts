import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/** One line of an events file: its number (from 1, as an editor counts) and text. */
export interface FileLine {
  number: number;
  text: string;
}

/**
 * The file's SHA-256 and how many events it holds (lines that are not blank). The digest
 * names the file's Idempotency-Keys, so that a resumed run sends each line with the key
 * it had before, and a changed file is not taken for the same one.
 */
export async function surveyFile(path: string): Promise<{ digest: string; events: number }> {
  const hash = createHash('sha256');
  let events = 0;
  for await (const line of readLines(path, (chunk) => hash.update(chunk))) {
    if (line.text.trim() !== '') events += 1;
  }
  return { digest: hash.digest('hex'), events };
}

/** The file's lines, read as a stream: a file of millions of events is never held whole. */
export async function* readLines(
  path: string,
  onChunk?: (chunk: Buffer) => void,
): AsyncGenerator<FileLine> {
  const stream = createReadStream(path);
  if (onChunk !== undefined) stream.on('data', (chunk) => onChunk(chunk as Buffer));
  let number = 0;
  for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
    number += 1;
    yield { number, text };
  }
}

/** A line's Idempotency-Key: the file's digest and the line's number. */
export const lineKey = (digest: string, line: number): string =>
  `ingest-file-${digest.slice(0, 32)}-${line}`;
