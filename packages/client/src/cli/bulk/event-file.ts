import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/** What a line of an events file holds. */
export interface EventLine {
  event: string;
  data: Record<string, unknown>;
}

/** The line's event, or why it is not one (the service checks the event itself). */
export const parseLine = (text: string): EventLine | string => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not JSON: ${(error as Error).message}`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'not a JSON object';
  const { event, data } = value as Record<string, unknown>;
  if (typeof event !== 'string') return 'has no "event" name';
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    return 'has no "data" object';
  return { event, data: data as Record<string, unknown> };
};

/** One line of an events file: its number (from 1, as an editor counts) and text. */
export interface FileLine {
  number: number;
  text: string;
}

/**
 * The file's SHA-256 and how many events it holds (lines that are not blank). The digest
 * names a run's Idempotency-Keys (see lineKey).
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

/** A line's text's digest, as the results file records it. */
export const lineHash = (text: string): string =>
  createHash('sha256').update(text).digest('hex').slice(0, 16);

/**
 * A line's Idempotency-Key: the run's (the file's digest when its first run began), its
 * text's digest and its occurrence among the file's lines of that text (0 for the first).
 * A resumed run sends an unchanged line with the key it had before wherever it has moved,
 * so a line whose answer was lost is not published twice; a corrected line, or one more
 * copy of a line, gets a key of its own, so it is published.
 */
export const lineKey = (run: string, hash: string, nth: number): string =>
  `ingest-file-${run.slice(0, 24)}-${hash}-${nth}`;

/**
 * The key of a line in a run whose results file names lines by number alone (its header
 * has no `keyedBy`, see Header): the run's, the line's number and its text's digest.
 * Such a run keeps these keys, so that a line whose answer was lost gets its event back.
 */
export const numberedLineKey = (run: string, line: number, hash: string): string =>
  `ingest-file-${run.slice(0, 24)}-${line}-${hash}`;
