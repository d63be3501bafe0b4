// The results table, for the terminal and for test/faults/results/latest.md, and what
// scenarios with a companion (webhook receivers, a noisy neighbour) add to it.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describeCommit, type RunProvenance } from '@ingest/test-harness';
import { quantile, retriedAnswers } from './bot-request.js';
import { markdownTable } from './markdown-table.js';
import { passed, type ScenarioResult } from './run-scenario.js';

const HEADERS = [
  'scenario',
  'events sent',
  'accepted (2xx)',
  'applied',
  'rejected (400)',
  'lost',
  'duplicated',
  'mismatches',
  'requests',
  'retries',
  'requeued',
  'attempts cut/dup',
  'non-2xx',
  'replays dup/lost answer',
  'latency p50/p95 ms',
  'load s',
  'drain s',
  'result',
];

const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** Attempts cut short by a dying worker, and runs that found their event already done. */
function attemptStats(result: ScenarioResult): string {
  let interrupted = 0;
  let duplicates = 0;
  for (const counts of result.snapshot.attempts.values()) {
    interrupted += counts.interrupted;
    duplicates += counts.duplicates;
  }
  return `${interrupted}/${duplicates}`;
}

/**
 * Idempotent replays the bot got: for its deliberate duplicate sends, and for retries
 * whose first try was recorded but never answered (the API died, the answer was lost).
 */
function replays(result: ScenarioResult): string {
  let duplicates = 0;
  let lostAnswers = 0;
  for (const event of result.sent) {
    const replayed = event.deliveries.filter((delivery) => delivery.replayed).length;
    if (event.planned.duplicate === 'none') lostAnswers += replayed;
    else duplicates += replayed;
  }
  return `${duplicates}/${lostAnswers}`;
}

function rowOf(result: ScenarioResult): string[] {
  const { report, counters } = result;
  return [
    result.scenario.name,
    String(result.events),
    String(report.accepted),
    String(report.applied),
    String(report.rejected),
    String(report.lost.length),
    String(report.duplicated.length),
    String(report.mismatches.length),
    String(counters.requests),
    String(counters.retries),
    String(result.requeued),
    attemptStats(result),
    retriedAnswers(counters),
    replays(result),
    `${quantile(counters.latencies, 0.5)}/${quantile(counters.latencies, 0.95)}`,
    seconds(result.loadMs),
    seconds(result.drainMs),
    passed(result) ? 'ok' : 'FAIL',
  ];
}

export const table = (results: ScenarioResult[]): string =>
  markdownTable(HEADERS, results.map(rowOf));

/**
 * Every problem found, scenario by scenario: the gravest kinds first, at most `limit`
 * lines of each kind (a cascade of mismatches must not hide a process that died).
 */
export function findings(results: ScenarioResult[], limit = 8): string[] {
  const lines: string[] = [];
  for (const result of results) {
    const { report } = result;
    const kinds: Array<[string, string[]]> = [
      ['problem', result.problems],
      ['lost', report.lost],
      ['duplicated', report.duplicated],
      ['not accepted', report.unaccepted],
      ['mismatch', report.mismatches],
    ];
    const total = kinds.reduce((sum, [, items]) => sum + items.length, 0);
    if (total === 0) continue;
    lines.push(`${result.scenario.name} (${total}):`);
    for (const [kind, items] of kinds) {
      for (const text of items.slice(0, limit)) {
        lines.push(`  - ${kind}: ${text.replaceAll('\n', ' ')}`);
      }
      if (items.length > limit) lines.push(`  - ${kind}: ... and ${items.length - limit} more`);
    }
  }
  return lines;
}

/** What companions found besides the ledger: a summary and a table each. */
export function companionReport(results: ScenarioResult[]): string[] {
  return results.flatMap(({ scenario, companion }) =>
    companion === undefined
      ? []
      : [`${scenario.name} ${companion.summary}`, '', ...companion.details, ''],
  );
}

/** The traffic of a scenario that brings its own (see Scenario.shape), as sent. */
function traffic(result: ScenarioResult): string {
  if (result.scenario.shape === undefined) return '';
  const { shape, overlap } = result;
  return `; traffic: ${result.events} events over ${shape.slugs} slugs, up to ${shape.inFlightPerSlug} of a slug in flight (${overlap.overlapped} sent while another of their slug was, at most ${overlap.peak} at once)`;
}

export interface RunInfo {
  mode: string;
  seed: number;
  /** The code and the machine, taken when the run started. */
  provenance: RunProvenance;
  wallMs: number;
  startedAt: Date;
  /** What the ledger self-check found (see ledger-self-check.ts). */
  selfCheck: string;
}

export async function writeResults(
  path: string,
  results: ScenarioResult[],
  info: RunInfo,
): Promise<void> {
  const failed = results.filter((result) => !passed(result));
  const companions = companionReport(results);
  const details = findings(results).map((line) =>
    line.startsWith('  - ') ? `  - \`${line.slice(4).replaceAll('`', "'")}\`` : `- ${line}`,
  );
  const { provenance } = info;
  const text = [
    '# Fault-injection suite: latest run',
    '',
    `- Date: ${info.startedAt.toISOString()}`,
    `- Mode: ${info.mode} (seed ${info.seed})`,
    `- Commit: ${describeCommit(provenance)}`,
    `- Machine: ${provenance.cores} cores (${provenance.cpu}), Node ${provenance.node}, load average ${provenance.loadAverageAtStart.toFixed(2)} at start`,
    `- Wall time: ${seconds(info.wallMs)} s`,
    `- Ledger self-check: ${info.selfCheck}`,
    `- Verdict: ${failed.length === 0 ? 'every scenario passed' : `FAILED: ${failed.map((r) => r.scenario.name).join(', ')}`}`,
    '',
    table(results),
    '',
    'Faults:',
    '',
    ...results.map(
      (result) => `- ${result.scenario.name}: ${result.scenario.fault}${traffic(result)}`,
    ),
    '',
    ...(companions.length === 0 ? [] : ['Besides the ledger:', '', ...companions]),
    ...(details.length === 0 ? [] : ['Findings:', '', ...details, '']),
  ].join('\n');
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

/** One file a process, named after it (`worker-1#2.log`: worker 1's second start). */
export async function writeLogs(
  dir: string,
  logs: Array<{ name: string; lines: string[] }>,
): Promise<void> {
  await rm(dir, { recursive: true, force: true }); // no stale file from an earlier run
  await mkdir(dir, { recursive: true });
  await Promise.all(
    logs.map(({ name, lines }) => writeFile(join(dir, `${name}.log`), `${lines.join('\n')}\n`)),
  );
}
