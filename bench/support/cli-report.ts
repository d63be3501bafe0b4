// The cli phase's rows: in the run's table, and alone in results/cli.md (report.ts).
import type { CliResult } from '../phases/cli.js';
import type { Row } from '../report.js';
import { perSecond, ratio } from './format.js';

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
