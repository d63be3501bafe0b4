// What the noisy-neighbour companion prints and writes: the flood's answers and ledger, and
// how long each account's events waited from accepted to applied.
import { retriedAnswers, type BotCounters } from './bot-request.js';
import { BACKLOG_AHEAD, type AccountLatency, type FairnessFigures } from './fairness-figures.js';
import type { LedgerReport } from './ledger-report.js';
import { markdownTable } from './markdown-table.js';

export interface FloodVerdict {
  report: LedgerReport;
  counters: BotCounters;
  figures: FairnessFigures;
  /** Events planned. */
  total: number;
  /** From the flood's first request to its last answer. */
  floodMs: number;
  problems: number;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const waits = ({ p50, p99 }: AccountLatency) => `${p50}/${p99} ms`;

export function floodReport(verdict: FloodVerdict): { summary: string; details: string[] } {
  const { report, counters, figures } = verdict;
  const behind = figures.quietBehindBacklog;
  const starvation =
    behind.events === 0
      ? `no quiet event was accepted behind ${BACKLOG_AHEAD}+ noisy ones: starvation not judged`
      : `${behind.events} quiet events accepted behind ${BACKLOG_AHEAD}+ noisy ones took ${waits(behind)} and were applied after ${Math.round(figures.overtakenShare * 100)}% of that backlog (median)`;
  const summary = [
    `noisy account: ${report.accepted} of ${verdict.total} events accepted in ${seconds(verdict.floodMs)} (non-2xx ${retriedAnswers(counters)}, ${counters.retries} retries)`,
    `applied ${report.applied} (${report.succeeded} succeeded, ${report.failedAsExpected} failed as the replay says), lost ${report.lost.length}, duplicated ${report.duplicated.length}, mismatches ${report.mismatches.length}`,
    `backlog: at most ${figures.peakBacklog} events, drained ${seconds(figures.backlogMs)} after the flood began; last quiet event applied at ${seconds(figures.quietDoneMs)}`,
    `accepted to applied p50/p99: quiet ${waits(figures.quiet)}, noisy ${waits(figures.noisy)}; ${starvation}`,
    verdict.problems === 0 ? 'ok' : `${verdict.problems} problems`,
  ].join('; ');
  const headers = [
    'account',
    'events applied',
    'accepted to applied p50 ms',
    'p99 ms',
    'max ms',
    'last applied (after the flood began)',
  ];
  const row = (name: string, latency: AccountLatency, lastMs: number | undefined) => [
    name,
    String(latency.events),
    String(latency.p50),
    String(latency.p99),
    String(latency.max),
    lastMs === undefined ? '' : seconds(lastMs),
  ];
  const rows = [
    row('quiet', figures.quiet, figures.quietDoneMs),
    row(`quiet, behind ${BACKLOG_AHEAD}+ noisy events`, figures.quietBehindBacklog, undefined),
    row('noisy', figures.noisy, figures.backlogMs),
  ];
  return { summary, details: markdownTable(headers, rows).split('\n') };
}
