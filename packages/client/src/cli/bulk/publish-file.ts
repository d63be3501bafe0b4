import type { IngestClient } from '../../client.js';
import type { PublishManyResult } from '../../settle-batch.js';
import type { BatchEvent } from '../../types.js';
import { lineKey, readLines, surveyFile } from './event-file.js';
import { readResults, ResultsWriter, type LineResult } from './results-file.js';

export interface PublishFileOptions {
  client: IngestClient;
  file: string;
  resultsPath: string;
  /** Batches in flight. */
  concurrency: number;
  /** Lines a batch carries at most. */
  batchSize: number;
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
 * Publishes the lines of an NDJSON file of `{event, data}` objects in batches,
 * `concurrency` batches at a time, and records each line's result as it is answered.
 * Every line is sent with an idempotencyKey made of the file's digest and its line
 * number, so a run stopped anywhere (Ctrl-C, a crash, a lost answer) and started again
 * publishes no line twice: lines the results file records as accepted are skipped, and
 * any other line sent again gets back the event of its earlier send, if there was one.
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

  // The line of each event sent and not yet answered, by its place among those sent.
  const lineOf = new Map<number, number>();
  let sent = 0;
  async function* eventsToSend(): AsyncGenerator<BatchEvent> {
    for await (const line of readLines(options.file)) {
      if (options.stop.aborted) return;
      if (line.text.trim() === '') continue;
      if (done.has(line.number)) {
        summary.alreadyDone += 1;
        continue;
      }
      const parsed = parseLine(line.text);
      if (typeof parsed === 'string') {
        const message = `Line ${line.number} ${parsed}`;
        record({ line: line.number, error: { status: 0, code: 'INVALID_LINE', message } });
        continue;
      }
      lineOf.set(sent, line.number);
      sent += 1;
      // Checked by the service, event by event: a bad one is refused alone.
      yield { ...parsed, idempotencyKey: lineKey(digest, line.number) } as BatchEvent;
    }
  }
  const onResult = (result: PublishManyResult, index: number) => {
    const line = lineOf.get(index);
    if (line === undefined) throw new Error(`a result for event ${index}, which was not sent`);
    lineOf.delete(index);
    record(lineResult(line, result));
  };

  try {
    await options.client.publishStream(eventsToSend(), onResult, {
      batchSize: options.batchSize,
      concurrency: options.concurrency,
      signal: options.abandon,
    });
  } catch (error) {
    // Given up: the lines in flight are sent again on resume, with the same keys.
    if (!options.abandon.aborted) throw error;
  } finally {
    await writer.close();
  }
  summary.interrupted =
    options.stop.aborted &&
    summary.published + summary.replayed + summary.failed + summary.alreadyDone < events;
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}

/** A line's result as the results file records it: an accepted line has its event's id. */
function lineResult(line: number, result: PublishManyResult): LineResult {
  if (result.ok)
    return {
      line,
      id: result.receipt.id,
      status: result.receipt.status,
      ...(result.replayed ? { replayed: true } : {}),
    };
  const { status, code, message, requestId } = result.error;
  return {
    line,
    error: { status, code, message, ...(requestId === undefined ? {} : { requestId }) },
  };
}
