import { SingleBar } from 'cli-progress';
import type { BulkSummary } from './publish-file.js';

/**
 * The progress bar on standard error: done, failed, rate, ETA. Not a terminal (a CI log,
 * a pipe), it prints a line every 2 seconds instead of redrawing.
 */
export function startProgress(events: number, alreadyDone: number) {
  const bar = new SingleBar({
    format:
      'publishing [{bar}] {value}/{total} | refused {failed} | {rate}/s | ETA {eta_formatted}',
    stream: process.stderr,
    noTTYOutput: true,
    notTTYSchedule: 2_000,
    etaBuffer: 200,
    hideCursor: true,
  });
  const started = performance.now();
  let sent = 0;
  bar.start(events, alreadyDone, { failed: 0, rate: '0' });
  return {
    update(summary: BulkSummary) {
      sent += 1;
      const seconds = (performance.now() - started) / 1000;
      bar.update(alreadyDone + summary.published + summary.replayed + summary.refused, {
        failed: summary.refused,
        rate: seconds > 0 ? (sent / seconds).toFixed(0) : '0',
      });
    },
    stop() {
      bar.stop();
    },
  };
}

/** The table printed at the end of a bulk publish. */
export function summaryTable(summary: BulkSummary, resultsPath: string): string {
  const sent = summary.published + summary.replayed + summary.refused;
  const byCode = (counts: Record<string, number>) =>
    Object.entries(counts).map(([code, count]): [string, string] => [`  ${code}`, String(count)]);
  const { outcomes } = summary;
  const rows: Array<[string, string]> = [
    ['events in the file', String(summary.events)],
    ['published (new events)', String(summary.published)],
    ['published before (same key, same event)', String(summary.replayed)],
    ['already done (results file)', String(summary.alreadyDone)],
    ['refused', String(summary.refused)],
    ...byCode(summary.refusedByCode),
    ['refused before, unchanged (not sent)', String(summary.refusedBefore)],
    [
      'not sent (interrupted)',
      String(summary.events - sent - summary.alreadyDone - summary.refusedBefore),
    ],
    // Of every accepted line of the file, earlier runs' too.
    ...(outcomes === undefined
      ? ([['outcomes', 'not waited for']] as Array<[string, string]>)
      : ([
          ['applied', String(outcomes.succeeded)],
          ['failed when applied', String(outcomes.failed)],
          ...byCode(outcomes.failedByCode),
          ['not finished yet', String(outcomes.pending)],
        ] as Array<[string, string]>)),
    ['time', `${summary.seconds.toFixed(1)} s`],
    ['rate', `${summary.seconds > 0 ? (sent / summary.seconds).toFixed(0) : '0'} events/s`],
    ['results', resultsPath],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n');
}
