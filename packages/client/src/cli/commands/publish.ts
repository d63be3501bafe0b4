import { Option, type Command } from 'commander';
import type { IngestClient } from '../../client.js';
import { DEFAULT_BATCH_SIZE } from '../../publish-many.js';
import { startProgress, summaryTable } from '../bulk/progress.js';
import { publishFile } from '../bulk/publish-file.js';
import { clientFor, positiveInt, print, tell } from '../context.js';
import { readJsonArgument, UsageError, userPath } from '../input.js';

interface PublishFlags {
  data?: string;
  wait?: number;
  idempotencyKey?: string;
  file?: string;
  concurrency: number;
  batchSize: number;
  results?: string;
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
}

/** `publish --file`, with a progress bar and a summary; its exit code. */
async function publishBulk(
  client: IngestClient,
  file: string,
  options: Pick<PublishFlags, 'concurrency' | 'batchSize' | 'results'>,
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
      onStart: ({ events, done }) => {
        progress = startProgress(events, done);
      },
      onLine: (_result, running) => progress?.update(running),
    });
    progress?.stop();
    tell(summaryTable(summary, resultsPath));
    if (summary.interrupted) return 130;
    return summary.failed > 0 ? 1 : 0;
  } finally {
    progress?.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
