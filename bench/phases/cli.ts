// The `ingest` CLI's bulk command, `publish --file events.ndjson --concurrency 32`, against
// the service as the bench runs it (the API and one service worker), beside a plain loop
// in the runner that publishes as many events of the same kind with as many calls in
// flight. Each publish starts from emptied tables with a worker of its own and is
// followed until every event is applied:
//
//   1. a warm-up publish by the loop, not counted (the API's JIT and pools);
//   2. the reference: the loop, no Idempotency-Key, nothing recorded;
//   3. the loop with an Idempotency-Key per call: what the API's keyed path costs (the
//      keys claimed in the group commit's transaction, a statement more than without),
//      apart from what the CLI's process costs;
//   4. the CLI on a file of the same events: its accept rate is the reference's less
//      what the CLI adds (the file's digest, an Idempotency-Key per line that the API
//      records, the results file, a process of its own);
//   5. the CLI again on the same file, its results file complete: a no-op resume, which
//      must send nothing and leave the account with exactly its events;
//   6. the reference again: figures are against the mean of 2 and 6.
import type { BenchEnvironment } from '../bench-environment.js';
import { cliNotes } from '../support/cli-report.js';
import type { CliResult, PublishRun } from '../support/cli-result.js';
import {
  cliEnvironment,
  cliPublishHas,
  createLine,
  publishLoop,
  runCli,
  summaryFigure,
} from '../support/bulk-publish.js';
import { describeCpu, otherWorkNote, type MeteredProcess } from '../support/cpu-meter.js';
import { withCliWorkspace } from '../support/cli-workspace.js';
import { eventCounts } from '../support/order-queries.js';
import { timePublish, withWorker, type Publisher } from '../support/timed-publish.js';

/**
 * The reference: `events` creates by the loop in the runner, with fresh slugs; `keyed`,
 * each with an Idempotency-Key of its own.
 */
async function reference(
  env: BenchEnvironment,
  label: string,
  publisher: Publisher,
  events: number,
  keyed = false,
) {
  const { cliConcurrency: concurrency } = env.options.plan;
  const tag = env.tag('cli-reference');
  const bodies = Array.from({ length: events }, (_, i) => createLine(tag, i + 1));
  const keyOf = keyed ? (i: number) => `bench-${tag}-${i + 1}` : undefined;
  let resent = 0;
  const { run } = await withWorker(env, (worker) =>
    timePublish(env, label, publisher, worker, {
      events,
      run: async () => {
        const { baseUrl } = env.api;
        ({ resent } = await publishLoop(baseUrl, publisher.key, bodies, concurrency, keyOf));
      },
    }),
  );
  if (resent > 0) {
    env.notes.push(
      `CLI phase, ${label}: ${resent} sends answered 429 or 503, waited on (Retry-After) and sent again.`,
    );
  }
  return run;
}

/** The CLI on `file`, then again on the same file with its results file complete. */
async function publishWithCli(
  env: BenchEnvironment,
  publisher: Publisher,
  file: string,
  configDir: string,
) {
  const { cliEvents: events, cliConcurrency, cliWatchdogSeconds } = env.options.plan;
  const args = ['publish', '--file', file, '--concurrency', String(cliConcurrency)];
  // The phase times the publishing; the outcomes are its own to follow.
  if (await cliPublishHas('--outcomes')) args.push('--outcomes', '0');
  const cliEnv = cliEnvironment(env.api.baseUrl, publisher.key, configDir);
  // Killed past what the watchdog allows the whole phase: by then the run is over anyway.
  const timeoutMs = cliWatchdogSeconds * 1000;
  const cliProcess: MeteredProcess = { name: 'cli', exitedChildren: true };
  return withWorker(env, async (worker) => {
    let summarySeconds = Number.NaN;
    const { run, scope } = await timePublish(env, 'ingest publish --file', publisher, worker, {
      events,
      processes: [cliProcess],
      run: async () => {
        const cli = await runCli(args, cliEnv, timeoutMs);
        if (cli.code !== 0) throw new Error(`cli: the CLI exited ${cli.code}; see ${cli.logFile}`);
        summarySeconds = summaryFigure(cli, 'time');
      },
    });
    const meter = await env.cpuMeter([
      { name: 'api', pid: env.api.proc.pid },
      { name: 'worker', pid: worker.proc.pid },
      cliProcess,
    ]);
    const resumed = await runCli(args, cliEnv, timeoutMs);
    const cpu = await meter.stop();
    const sent =
      summaryFigure(resumed, 'published (new events)') +
      summaryFigure(resumed, 'published before (same key, same event)') +
      summaryFigure(resumed, 'failed');
    const skipped = summaryFigure(resumed, 'already done (results file)');
    const { recorded } = await eventCounts(env.db, scope);
    if (resumed.code !== 0 || sent !== 0 || skipped !== events || recorded !== events) {
      throw new Error(
        `cli: the resume on a complete results file exited ${resumed.code}, skipped ${skipped} ` +
          `of ${events} lines and sent ${sent}; the account has ${recorded} events, not ` +
          `${events}. See ${resumed.logFile}`,
      );
    }
    env.log(
      `  resume, results file complete: ${skipped} lines skipped, none sent, in ` +
        `${resumed.seconds.toFixed(2)} s; the account has ${recorded} events\n      ${describeCpu(cpu)}`,
    );
    return { cli: { ...run, summarySeconds }, resume: { seconds: resumed.seconds, skipped, cpu } };
  });
}

export async function measureCli(env: BenchEnvironment, drainRate?: number): Promise<CliResult> {
  const { cliEvents: events, cliWarmupEvents, cliConcurrency: concurrency } = env.options.plan;
  env.log(
    `cli: ingest publish --file of ${events} article.create events, --concurrency ` +
      `${concurrency}, against a plain loop; one service worker`,
  );
  const historyFrom = env.cpuHistory.length;
  try {
    return await withCliWorkspace(env, 'cli', events, async (workspace) => {
      const { publisher, file, fileBytes, configDir } = workspace;
      await reference(env, 'warm-up (not counted)', publisher, cliWarmupEvents);
      const before = await reference(env, 'reference before', publisher, events);
      const keyed = await reference(env, 'loop with Idempotency-Keys', publisher, events, true);
      const { cli, resume } = await publishWithCli(env, publisher, file, configDir);
      const after = await reference(env, 'reference after', publisher, events);
      const measured = {
        events,
        concurrency,
        fileBytes,
        references: [before, after] as [PublishRun, PublishRun],
        referenceRate: (before.acceptRate + after.acceptRate) / 2,
        referenceEndToEndRate: (before.endToEndRate + after.endToEndRate) / 2,
        keyed,
        cli,
        resume,
        ...(drainRate === undefined ? {} : { drainRate }),
      };
      const notes = cliNotes(measured);
      env.notes.push(...notes);
      const machineNotes = otherWorkNote(env.cpuHistory.slice(historyFrom));
      return { ...measured, notes, machineNotes };
    });
  } finally {
    await env.reset();
  }
}
