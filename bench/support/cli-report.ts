// The cli phase's rows, in the run's table and alone in results/cli.md (report.ts), and
// its notes.
import type { CliResult, PublishRun } from './cli-result.js';
import { perSecond, ratio } from './format.js';
import type { Row } from './results-file.js';

const seconds = (n: number) => (n < 10 ? `${n.toFixed(2)} s` : `${n.toFixed(1)} s`);

export function cliRows(result: CliResult): Row[] {
  const { cli, resume, events, concurrency, referenceRate, referenceEndToEndRate } = result;
  const row = (figure: string, service: string, reference: string, r: string): Row => ({
    figure,
    service,
    reference,
    ratio: r,
    target: '—',
  });
  const loop = `${concurrency} in flight, plain fetch loop`;
  return [
    row(
      `CLI publish --file, ${events.toLocaleString('en-US')} creates, --concurrency ${concurrency}: accepted`,
      perSecond(cli.acceptRate),
      `${perSecond(referenceRate)} ${loop}`,
      ratio(cli.acceptRate, referenceRate),
    ),
    row(
      "Plain loop with an Idempotency-Key per call (the API's keyed path): accepted",
      perSecond(result.keyed.acceptRate),
      `${perSecond(referenceRate)} ${loop}`,
      ratio(result.keyed.acceptRate, referenceRate),
    ),
    row(
      "CLI publish --file: accepted, against the keyed loop (the CLI's own cost)",
      perSecond(cli.acceptRate),
      `${perSecond(result.keyed.acceptRate)} keyed loop`,
      ratio(cli.acceptRate, result.keyed.acceptRate),
    ),
    row(
      'CLI publish --file: end to end (start → last applied, 1 worker)',
      perSecond(cli.endToEndRate),
      `${perSecond(referenceEndToEndRate)} ${loop}`,
      ratio(cli.endToEndRate, referenceEndToEndRate),
    ),
    ...(result.drainRate === undefined
      ? []
      : [
          row(
            'CLI publish --file: end to end, against the drain',
            perSecond(cli.endToEndRate),
            `${perSecond(result.drainRate)} drain, 1 worker`,
            ratio(cli.endToEndRate, result.drainRate),
          ),
        ]),
    row(
      `CLI resume, results file complete (${resume.skipped} lines skipped)`,
      seconds(resume.seconds),
      `${seconds(cli.acceptSeconds)} first run`,
      ratio(resume.seconds, cli.acceptSeconds),
    ),
  ];
}

/** What explains the figures: noise, where the time went, CPU per event, load shed. */
export function cliNotes(result: Omit<CliResult, 'notes' | 'machineNotes'>): string[] {
  const [before, after] = result.references;
  const spread = Math.abs(before.acceptRate - after.acceptRate) / result.referenceRate;
  const { cli, events, keyed } = result;
  const cliCores = cli.cpu.cores.cli ?? 0;
  const perEvent = (run: PublishRun, name: string) =>
    ((run.cpu.cores[name] ?? 0) * run.acceptSeconds * 1000) / run.events;
  const shed = (run: PublishRun) => run.answers['503'] ?? 0;
  const cpuPerEvent = (run: PublishRun) =>
    `API ${perEvent(run, 'api').toFixed(2)}, PostgreSQL ${perEvent(run, 'postgres').toFixed(2)}`;
  return [
    `CLI: ${events} article.create events of ${Math.round(result.fileBytes / events)} bytes a ` +
      `line (a ${(result.fileBytes / 2 ** 20).toFixed(1)} MiB file), ${result.concurrency} calls ` +
      `in flight, one API key, the API and one service worker running. The reference loop ran ` +
      `at ${Math.round(before.acceptRate)}/s before the CLI and ${Math.round(after.acceptRate)}/s ` +
      `after (${(spread * 100).toFixed(0)}% apart): ratios closer to 1 than that are noise.`,
    `The CLI's own summary timed its work (digest, sends, results file) at ` +
      `${cli.summarySeconds.toFixed(1)} s of its ${cli.acceptSeconds.toFixed(1)} s from spawn to ` +
      `exit; the rest is node's start-up and the CLI's loading. It used ${cliCores.toFixed(2)} ` +
      `cores while it ran${cliCores > 0.8 ? ': near one, it is bound by its own event loop' : ''}` +
      `, ${perEvent(cli, 'cli').toFixed(2)} ms an event (the loop's runner: ` +
      `${perEvent(before, 'runner').toFixed(2)} ms).`,
    `The API records calls with an Idempotency-Key by group commit, as those without, with ` +
      `their keys claimed in the batch's transaction: the loop with a key per call ran ` +
      `at ${(keyed.acceptRate / result.referenceRate).toFixed(2)}x the reference, so that much ` +
      `of the CLI's ratio is the service's keyed path, and the CLI ran at ` +
      `${(cli.acceptRate / keyed.acceptRate).toFixed(2)}x the keyed loop. CPU ms an event, ` +
      `reference: ${cpuPerEvent(before)}; keyed loop: ${cpuPerEvent(keyed)}; CLI: ${cpuPerEvent(cli)}.`,
    `Calls the API refused (503, with a Retry-After from its admission queue, which the CLI and the loop wait out): ` +
      `${shed(before)} of the reference before, ${shed(keyed)} of the keyed loop, ` +
      `${shed(cli)} of the CLI, ${shed(after)} of the reference after.`,
  ];
}
