import type { IngestClient } from '../../client.js';
import type { PublishManyResult } from '../../settle-batch.js';
import type { BatchEvent } from '../../types.js';
import { lineHash, lineKey, readLines, surveyFile } from './event-file.js';
import { waitForOutcomes, type Outcomes } from './outcomes.js';
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
  /** How long to wait for the accepted events' outcomes once every line is sent; 0: not at all. */
  outcomesTimeoutMs: number;
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
  /** Refused by an earlier run and unchanged since: not sent. */
  refusedBefore: number;
  /** Refused by the service (or not an event): not accepted. */
  refused: number;
  refusedByCode: Record<string, number>;
  /** What became of this run's accepted events; undefined when not waited for. */
  outcomes?: Outcomes;
  /** Stopped before every line was sent. */
  interrupted: boolean;
  /** From the start to the last line answered: the wait for outcomes is not in it. */
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
 * Every line is sent with an idempotencyKey made of the run, its line number and its
 * text (lineKey), so a run stopped anywhere (Ctrl-C, a crash, a lost answer) and started
 * again publishes no line twice: lines the results file records as accepted are skipped
 * whatever became of the file since, refused lines are sent again only once corrected,
 * and any other line sent again gets back the event of its earlier send, if there was one.
 * Then it waits for the accepted events' outcomes and records them too.
 */
export async function publishFile(options: PublishFileOptions): Promise<BulkSummary> {
  const started = performance.now();
  const { digest, events } = await surveyFile(options.file);
  const { header, results: earlier } = await readResults(options.resultsPath, options.file);
  const run = header?.run ?? digest;
  const writer = new ResultsWriter(
    options.resultsPath,
    { file: options.file, run },
    header === undefined,
  );
  const isAccepted = (result: LineResult | undefined) =>
    result?.id !== undefined && result.error === undefined;
  const done = [...earlier.values()].filter(isAccepted).length;
  const summary: BulkSummary = {
    events,
    published: 0,
    replayed: 0,
    alreadyDone: 0,
    refusedBefore: 0,
    refused: 0,
    refusedByCode: {},
    interrupted: false,
    seconds: 0,
  };
  options.onStart?.({ events, done });

  // This run's accepted events, for their outcomes.
  const accepted = new Map<string, { line: number; receivedAt: string; hash: string }>();
  const record = (result: LineResult & { hash: string }, receivedAt?: string) => {
    writer.write(result);
    if (result.error !== undefined) {
      summary.refused += 1;
      summary.refusedByCode[result.error.code] =
        (summary.refusedByCode[result.error.code] ?? 0) + 1;
    } else if (result.replayed === true) summary.replayed += 1;
    else summary.published += 1;
    if (result.error === undefined && result.id !== undefined && receivedAt !== undefined) {
      accepted.set(result.id, { line: result.line, receivedAt, hash: result.hash });
    }
    options.onLine?.(result, summary);
  };

  // The line and text digest of each event sent and not yet answered, by its place among those sent.
  const lineOf = new Map<number, { line: number; hash: string }>();
  let sent = 0;
  async function* eventsToSend(): AsyncGenerator<BatchEvent> {
    for await (const line of readLines(options.file)) {
      if (options.stop.aborted) return;
      if (line.text.trim() === '') continue;
      const before = earlier.get(line.number);
      if (isAccepted(before)) {
        summary.alreadyDone += 1;
        continue;
      }
      const hash = lineHash(line.text);
      if (before?.error !== undefined && before.hash === hash) {
        summary.refusedBefore += 1;
        continue;
      }
      const parsed = parseLine(line.text);
      if (typeof parsed === 'string') {
        const message = `Line ${line.number} ${parsed}`;
        record({ line: line.number, hash, error: { status: 0, code: 'INVALID_LINE', message } });
        continue;
      }
      lineOf.set(sent, { line: line.number, hash });
      sent += 1;
      // Checked by the service, event by event: a bad one is refused alone.
      yield { ...parsed, idempotencyKey: lineKey(run, line.number, hash) } as BatchEvent;
    }
  }
  const onResult = (result: PublishManyResult, index: number) => {
    const line = lineOf.get(index);
    if (line === undefined) throw new Error(`a result for event ${index}, which was not sent`);
    lineOf.delete(index);
    record(
      { ...lineResult(line.line, result), hash: line.hash },
      result.ok ? result.receipt.receivedAt : undefined,
    );
  };

  try {
    await options.client.publishStream(eventsToSend(), onResult, {
      batchSize: options.batchSize,
      concurrency: options.concurrency,
      signal: options.abandon,
    });
    summary.seconds = (performance.now() - started) / 1000;
    if (!options.stop.aborted && options.outcomesTimeoutMs > 0) {
      const outcomes = await waitForOutcomes(
        options.client,
        accepted,
        options.outcomesTimeoutMs,
        options.stop,
      );
      for (const { line, id } of outcomes.succeeded) {
        writer.write({ line, hash: accepted.get(id)!.hash, id, status: 'succeeded' });
      }
      for (const { line, id, code, message } of outcomes.failed) {
        const outcome = { code, message };
        writer.write({ line, hash: accepted.get(id)!.hash, id, status: 'failed', outcome });
      }
      summary.outcomes = outcomes;
    }
  } catch (error) {
    // Given up: the lines in flight are sent again on resume, with the same keys.
    if (!options.abandon.aborted) throw error;
  } finally {
    await writer.close();
  }
  const settled = summary.published + summary.replayed + summary.refused;
  summary.interrupted =
    options.stop.aborted && settled + summary.alreadyDone + summary.refusedBefore < events;
  // The publishing's time, without the wait for outcomes; set here too when it was cut short.
  if (summary.seconds === 0) summary.seconds = (performance.now() - started) / 1000;
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
  const { status, code, message, errors, requestId } = result.error;
  return {
    line,
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
