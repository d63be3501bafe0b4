import type { IngestClient } from '../../client.js';
import type { PublishManyResult } from '../../settle-batch.js';
import type { BatchEvent } from '../../types.js';
import {
  lineHash,
  lineKey,
  numberedLineKey,
  parseLine,
  readLines,
  surveyFile,
} from './event-file.js';
import { waitForOutcomes, type Outcomes } from './outcomes.js';
import { lineId, lineResult, readResults, ResultsWriter, type LineResult } from './results-file.js';

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
  /** What became of the file's accepted events, earlier runs' too; undefined: not waited for. */
  outcomes?: Outcomes;
  /** Stopped before every line was sent. */
  interrupted: boolean;
  /** From the start to the last line answered: the wait for outcomes is not in it. */
  seconds: number;
}

/** Where a line is now, and what names it across edits of the file (see lineId). */
interface Placed {
  line: number;
  hash: string;
  nth: number;
}

const isAccepted = (result: LineResult | undefined): result is LineResult & { id: string } =>
  result?.id !== undefined && result.error === undefined;

/**
 * Publishes the lines of an NDJSON file of `{event, data}` objects in batches,
 * `concurrency` batches at a time, and records each line's result as it is answered.
 * A line is named by its text and its occurrence among the file's lines of that text,
 * never by its number, and sent with an idempotencyKey made of the run and that name
 * (lineKey). So a run stopped anywhere (Ctrl-C, a crash, a lost answer) and started again,
 * with lines added, removed or moved in between, publishes no line twice: lines the
 * results file records as accepted are skipped, refused lines are sent again only once
 * corrected (a new text), one more copy of a line is one more event, and any other line
 * sent again gets back the event of its earlier send, if there was one. Then it waits for
 * the outcomes of the file's accepted events that the results file has none for yet,
 * earlier runs' included, and records them too.
 */
export async function publishFile(options: PublishFileOptions): Promise<BulkSummary> {
  const started = performance.now();
  const { digest, events } = await surveyFile(options.file);
  const { header, results: earlier } = await readResults(options.resultsPath, options.file);
  const run = header?.run ?? digest;
  const keyOf =
    header === undefined || header.keyedBy === 'text'
      ? (line: Placed) => lineKey(run, line.hash, line.nth)
      : (line: Placed) => numberedLineKey(run, line.line, line.hash);
  const writer = new ResultsWriter(
    options.resultsPath,
    { file: options.file, run, keyedBy: 'text' },
    header === undefined,
  );
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

  // The file's accepted events without a final outcome in the results file, to wait for.
  const waiting = new Map<string, Placed & { receivedAt?: string }>();
  // The outcomes the results file records of lines still in the file.
  const known = { succeeded: 0, failed: 0, failedByCode: {} as Record<string, number> };
  const record = (result: LineResult, line: Placed) => {
    writer.write(result);
    if (result.error !== undefined) {
      summary.refused += 1;
      summary.refusedByCode[result.error.code] =
        (summary.refusedByCode[result.error.code] ?? 0) + 1;
    } else if (result.replayed === true) summary.replayed += 1;
    else summary.published += 1;
    if (isAccepted(result)) waiting.set(result.id, { ...line, receivedAt: result.receivedAt });
    options.onLine?.(result, summary);
  };
  const recordedBefore = (result: LineResult & { id: string }, line: Placed) => {
    if (result.status === 'succeeded') known.succeeded += 1;
    else if (result.status === 'failed') {
      const code = result.outcome?.code ?? 'PROCESSING_FAILED';
      known.failed += 1;
      known.failedByCode[code] = (known.failedByCode[code] ?? 0) + 1;
    } else waiting.set(result.id, { ...line, receivedAt: result.receivedAt });
  };

  // Each event sent and not yet answered, by its place among those sent.
  const lineOf = new Map<number, Placed>();
  let sent = 0;
  async function* eventsToSend(): AsyncGenerator<BatchEvent> {
    // How many lines of each text have gone by: the next one's occurrence.
    const seen = new Map<string, number>();
    for await (const { number, text } of readLines(options.file)) {
      if (options.stop.aborted) return;
      if (text.trim() === '') continue;
      const hash = lineHash(text);
      const nth = seen.get(hash) ?? 0;
      seen.set(hash, nth + 1);
      const line = { line: number, hash, nth };
      const before = earlier.get(lineId(hash, nth));
      if (isAccepted(before)) {
        summary.alreadyDone += 1;
        recordedBefore(before, line);
        continue;
      }
      if (before?.error !== undefined) {
        summary.refusedBefore += 1;
        continue;
      }
      const parsed = parseLine(text);
      if (typeof parsed === 'string') {
        const message = `Line ${number} ${parsed}`;
        record({ ...line, error: { status: 0, code: 'INVALID_LINE', message } }, line);
        continue;
      }
      lineOf.set(sent, line);
      sent += 1;
      // Checked by the service, event by event: a bad one is refused alone.
      yield { ...parsed, idempotencyKey: keyOf(line) } as BatchEvent;
    }
  }
  const onResult = (result: PublishManyResult, index: number) => {
    const line = lineOf.get(index);
    if (line === undefined) throw new Error(`a result for event ${index}, which was not sent`);
    lineOf.delete(index);
    record(lineResult(line, result), line);
  };

  try {
    await options.client.publishStream(eventsToSend(), onResult, {
      batchSize: options.batchSize,
      concurrency: options.concurrency,
      signal: options.abandon,
    });
    summary.seconds = (performance.now() - started) / 1000;
    if (!options.stop.aborted && options.outcomesTimeoutMs > 0) {
      const waited = await waitForOutcomes(
        options.client,
        waiting,
        options.outcomesTimeoutMs,
        options.stop,
      );
      const outcomes = { ...known, failedNow: waited.failed.length, pending: waited.pending };
      for (const id of waited.succeeded) {
        const { line, hash, nth } = waiting.get(id)!;
        writer.write({ line, hash, nth, id, status: 'succeeded' });
        outcomes.succeeded += 1;
      }
      for (const { id, code, message } of waited.failed) {
        const { line, hash, nth } = waiting.get(id)!;
        writer.write({ line, hash, nth, id, status: 'failed', outcome: { code, message } });
        outcomes.failed += 1;
        outcomes.failedByCode[code] = (outcomes.failedByCode[code] ?? 0) + 1;
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
