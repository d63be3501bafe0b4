import type { IngestClient } from '../../client.js';
import { IngestError } from '../../errors.js';
import { lineKey, readLines, surveyFile, type FileLine } from './event-file.js';
import { readResults, ResultsWriter, type LineResult } from './results-file.js';

export interface PublishFileOptions {
  client: IngestClient;
  file: string;
  resultsPath: string;
  concurrency: number;
  /** Aborted: take no more lines, finish the ones in flight. */
  stop: AbortSignal;
  /** Aborted: give up the lines in flight too (they are sent again on resume). */
  abandon: AbortSignal;
  onStart?: (survey: { events: number; done: number }) => void;
  onLine?: (result: LineResult, summary: BulkSummary) => void;
}

export interface BulkSummary {
  /** Events in the file (lines that are not blank). */
  events: number;
  /** Accepted by this run as new events. */
  published: number;
  /** Accepted by this run, but the service had the line's key: an earlier run's event. */
  replayed: number;
  /** Already accepted by an earlier run (the results file said so): not sent. */
  alreadyDone: number;
  failed: number;
  failedByCode: Record<string, number>;
  /** Stopped before every line was sent. */
  interrupted: boolean;
  seconds: number;
}

interface EventLine {
  event: string;
  data: Record<string, unknown>;
}

const parseLine = (text: string): EventLine | string => {
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

/**
 * Publishes each line of an NDJSON file of `{event, data}` objects, `concurrency` at a
 * time, and records each line's result. Every line is sent with an Idempotency-Key made
 * of the file's digest and its line number, so a run stopped anywhere (Ctrl-C, a crash,
 * a lost answer) and started again publishes no line twice: lines the results file
 * records as accepted are skipped, and any other line sent again gets back the event of
 * its earlier send, if there was one.
 */
export async function publishFile(options: PublishFileOptions): Promise<BulkSummary> {
  const started = performance.now();
  const { digest, events } = await surveyFile(options.file);
  const earlier = await readResults(options.resultsPath, digest);
  const writer = new ResultsWriter(
    options.resultsPath,
    { file: options.file, digest },
    earlier.size === 0,
  );
  const done = new Set([...earlier.values()].filter((r) => r.id !== undefined).map((r) => r.line));
  const summary: BulkSummary = {
    events,
    published: 0,
    replayed: 0,
    alreadyDone: 0,
    failed: 0,
    failedByCode: {},
    interrupted: false,
    seconds: 0,
  };
  options.onStart?.({ events, done: done.size });

  const record = (result: LineResult) => {
    writer.write(result);
    if (result.error !== undefined) {
      summary.failed += 1;
      summary.failedByCode[result.error.code] = (summary.failedByCode[result.error.code] ?? 0) + 1;
    } else if (result.replayed === true) summary.replayed += 1;
    else summary.published += 1;
    options.onLine?.(result, summary);
  };

  const publishLine = async (line: FileLine) => {
    const parsed = parseLine(line.text);
    if (typeof parsed === 'string') {
      record({
        line: line.number,
        error: { status: 0, code: 'INVALID_LINE', message: `Line ${line.number} ${parsed}` },
      });
      return;
    }
    try {
      const published = await options.client.publish(parsed.event as never, parsed.data as never, {
        idempotencyKey: lineKey(digest, line.number),
        signal: options.abandon,
      });
      record({
        line: line.number,
        id: published.receipt.id,
        status: published.receipt.status,
        ...(published.replayed ? { replayed: true } : {}),
      });
    } catch (error) {
      if (options.abandon.aborted) return;
      if (!(error instanceof IngestError)) throw error;
      record({
        line: line.number,
        error: {
          status: error.status,
          code: error.code,
          message: error.message,
          ...(error.requestId === undefined ? {} : { requestId: error.requestId }),
        },
      });
    }
  };

  const lines = readLines(options.file);
  // Each worker takes the next line as it finishes one; an async generator hands its
  // values out one at a time, in order, to whoever asks.
  const worker = async () => {
    for (;;) {
      if (options.stop.aborted) return;
      const next = await lines.next();
      if (next.done === true) return;
      const line = next.value;
      if (line.text.trim() === '') continue;
      if (done.has(line.number)) {
        summary.alreadyDone += 1;
        continue;
      }
      await publishLine(line);
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  } finally {
    await lines.return(undefined);
    await writer.close();
  }
  summary.interrupted =
    options.stop.aborted &&
    summary.published + summary.replayed + summary.failed + summary.alreadyDone < events;
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}
