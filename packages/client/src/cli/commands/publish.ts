import { Option, type Command } from 'commander';
import type { IngestClient } from '../../client.js';
import { DEFAULT_BATCH_SIZE } from '../../publish-many.js';
import { startProgress, summaryTable } from '../bulk/progress.js';
import { publishFile } from '../bulk/publish-file.js';
import { clientFor, positiveInt, print, tell, wholeNumber } from '../context.js';
import { readJsonArgument, UsageError, userPath } from '../input.js';

interface PublishFlags {
  data?: string;
  wait?: number;
  idempotencyKey?: string;
  file?: string;
  concurrency: number;
  batchSize: number;
  results?: string;
  outcomes: number;
}

export function addPublishCommands(program: Command): void {
  program
    .command('publish [event]')
    .description('publish one event (--data), or every line of an NDJSON file (--file)')
    .option('--data <json>', 'the event data: JSON, @file.json, or - for standard input')
    .option('--wait <seconds>', 'wait up to this long for the outcome', positiveInt('--wait'))
    .option('--idempotency-key <key>', 'the call identity (default: a new one)')
    .option('--file <events.ndjson>', 'one {"event": ..., "data": {...}} a line')
    .addOption(
      new Option('--concurrency <n>', 'batches in flight with --file')
        .default(4)
        .argParser(positiveInt('--concurrency')),
    )
    .addOption(
      new Option('--batch-size <n>', 'lines a call carries with --file')
        .default(DEFAULT_BATCH_SIZE)
        .argParser(positiveInt('--batch-size')),
    )
    .option('--results <path>', 'where --file records each line (default: <file>.results.ndjson)')
    .addOption(
      new Option(
        '--outcomes <seconds>',
        "with --file, wait up to this long for the accepted events' outcomes (0: do not wait)",
      )
        .default(120)
        .argParser(wholeNumber('--outcomes')),
    )
    .action(async (event: string | undefined, options: PublishFlags, command: Command) => {
      const client = await clientFor(command);
      if (options.file !== undefined) {
        if (event !== undefined || options.data !== undefined)
          throw new UsageError('give an event and --data, or --file, not both');
        process.exitCode = await publishBulk(client, options.file, options);
        return;
      }
      if (event === undefined || options.data === undefined)
        throw new UsageError('give an event name and --data, or --file');
      const data = await readJsonArgument(options.data);
      const { wait, idempotencyKey } = options;
      const { receipt } = await client.publish(event as never, data as never, {
        ...(wait === undefined ? {} : { wait }),
        ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
      });
      print(receipt);
      // An event that was accepted and then failed or was rejected is a failure too.
      if (receipt.status === 'failed' || receipt.status === 'rejected') process.exitCode = 1;
    });

  program
    .command('receipt <id>')
    .description("an event's receipt")
    .option('--wait <seconds>', 'wait up to this long for it to finish', positiveInt('--wait'))
    .action(async (id: string, options: { wait?: number }, command: Command) => {
      const client = await clientFor(command);
      print(
        options.wait === undefined
          ? await client.getReceipt(id)
          : await client.waitForOutcome(id, { timeoutMs: options.wait * 1000 }),
      );
    });

  program
    .command('receipts')
    .description("the account's events, newest first, with their outcomes")
    .option('--status <status>', 'queued, processing, succeeded, failed or rejected')
    .option('--event <name>', 'one event type, as article.create')
    .option('--since <time>', 'received since: a time (ISO 8601) or how long ago (30m, 2h, 7d)')
    .option('--limit <n>', 'at most this many', positiveInt('--limit'), 100)
    .action(async (options: ReceiptsFlags, command: Command) => {
      const client = await clientFor(command);
      const since = options.since === undefined ? undefined : sinceTime(options.since);
      const query = {
        ...(options.status === undefined ? {} : { status: options.status as never }),
        ...(options.event === undefined ? {} : { event: options.event }),
        limit: Math.min(options.limit, 100),
      };
      const shown = [];
      for await (const receipt of client.listReceipts(query)) {
        if (since !== undefined && Date.parse(receipt.receivedAt) < since) break;
        shown.push(receipt);
        if (shown.length >= options.limit) break;
      }
      print(shown);
    });
}

interface ReceiptsFlags {
  status?: string;
  event?: string;
  since?: string;
  limit: number;
}

/** `--since`: a time (ISO 8601) or how long ago (`30m`, `2h`, `7d`), as epoch milliseconds. */
function sinceTime(value: string): number {
  const ago = /^(\d+)([smhd])$/.exec(value);
  if (ago !== null) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[
      ago[2] as 's' | 'm' | 'h' | 'd'
    ];
    return Date.now() - Number(ago[1]) * unit;
  }
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new UsageError('--since takes a time (ISO 8601) or 30m, 2h, 7d');
  return time;
}

/** `publish --file`, with a progress bar and a summary; its exit code. */
async function publishBulk(
  client: IngestClient,
  file: string,
  options: Pick<PublishFlags, 'concurrency' | 'batchSize' | 'results' | 'outcomes'>,
): Promise<number> {
  const resultsPath = userPath(options.results ?? `${file}.results.ndjson`);
  const stop = new AbortController();
  const abandon = new AbortController();
  // Ctrl-C once: take no more lines, finish those in flight. Twice: leave now; the lines
  // in flight are sent again on resume, with the same keys.
  const onSignal = () => (stop.signal.aborted ? abandon.abort() : stop.abort());
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let progress: ReturnType<typeof startProgress> | undefined;
  try {
    const summary = await publishFile({
      client,
      file: userPath(file),
      resultsPath,
      concurrency: options.concurrency,
      batchSize: options.batchSize,
      stop: stop.signal,
      abandon: abandon.signal,
      outcomesTimeoutMs: options.outcomes * 1000,
      onStart: ({ events, done }) => {
        progress = startProgress(events, done);
      },
      onLine: (_result, running) => progress?.update(running),
    });
    progress?.stop();
    tell(summaryTable(summary, resultsPath));
    if (summary.interrupted) return 130;
    // A failure an earlier run already told of (its exit code was 1) does not fail this one.
    return summary.refused > 0 || (summary.outcomes?.failedNow ?? 0) > 0 ? 1 : 0;
  } finally {
    progress?.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
