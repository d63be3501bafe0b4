// The run's figures as one table (figure, service, reference, ratio, target), printed
// and written to results/latest.md and results/latest.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CapacityResult } from './phases/capacity.js';
import type { DrainResult } from './phases/drain.js';
import type { FootprintResult } from './phases/footprint.js';
import type { LatencyResult } from './phases/latency.js';
import type { LagPercentiles } from './support/progress-queries.js';
import { BENCH_DIR } from './support/paths.js';

export interface Figures {
  capacity?: { service: CapacityResult; floor: CapacityResult };
  latency?: LatencyResult;
  drain?: { service1: DrainResult; service2: DrainResult; floor: DrainResult };
  lag?: { rate: number; service: LagPercentiles; floor: LagPercentiles };
  footprint?: FootprintResult;
}

export interface Row {
  figure: string;
  service: string;
  reference: string;
  ratio: string;
  target: string;
}

/** The only target the issue sets; the others are compared, not judged, for now. */
export const FOOTPRINT_GROWTH_TARGET = 1.15;

const perSecond = (n: number) => (Number.isFinite(n) ? `${Math.round(n)}/s` : 'n/a');
const millis = (n: number) => (Number.isFinite(n) ? `${n.toFixed(1)} ms` : 'n/a');
const mebibytes = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
const ratio = (a: number, b: number) =>
  b > 0 && Number.isFinite(a / b) ? (a / b).toFixed(2) : 'n/a';
const within = (start: number, end: number) =>
  end / start <= FOOTPRINT_GROWTH_TARGET ? 'ok' : 'OVER';

export function tableRows(figures: Figures): Row[] {
  const rows: Row[] = [];
  const add = (figure: string, service: string, reference: string, r: string, target = '—') =>
    rows.push({ figure, service, reference, ratio: r, target });
  const { capacity, latency, drain, lag, footprint } = figures;
  if (capacity) {
    const { service, floor } = capacity;
    add(
      'Ingest capacity (all 202, p99 < 100 ms)',
      perSecond(service.rate),
      `${perSecond(floor.rate)} floor`,
      ratio(service.rate, floor.rate),
    );
  }
  if (latency) {
    const { service, floor } = latency;
    for (const [name, key] of [
      ['p50', 'p50'],
      ['p99', 'p99'],
      ['p99.9', 'p999'],
    ] as const) {
      const s = service.latencyMs[key];
      const f = floor.latencyMs[key];
      add(`Latency ${name} at ${latency.rate}/s`, millis(s), `${millis(f)} floor`, ratio(s, f));
    }
  }
  if (drain) {
    const { service1, service2, floor } = drain;
    add(
      `Drain, 1 worker (${service1.events} events)`,
      perSecond(service1.rate),
      `${perSecond(floor.rate)} floor worker`,
      ratio(service1.rate, floor.rate),
    );
    add(
      'Drain, 2 workers',
      perSecond(service2.rate),
      `${perSecond(service1.rate)} 1 worker`,
      ratio(service2.rate, service1.rate),
    );
  }
  if (lag) {
    add(
      `End-to-end lag p50 at ${lag.rate}/s`,
      millis(lag.service.p50Ms),
      `${millis(lag.floor.p50Ms)} floor`,
      ratio(lag.service.p50Ms, lag.floor.p50Ms),
    );
    add(
      `End-to-end lag p99 at ${lag.rate}/s`,
      millis(lag.service.p99Ms),
      `${millis(lag.floor.p99Ms)} floor`,
      ratio(lag.service.p99Ms, lag.floor.p99Ms),
    );
  }
  if (footprint) {
    const { start, end } = footprint;
    const soak = `${footprint.soakSeconds} s soak`;
    const target = `≤ ${FOOTPRINT_GROWTH_TARGET}`;
    for (const [name, key] of [
      ['API RSS', 'apiRssBytes'],
      ['Worker RSS', 'workerRssBytes'],
      ['Redis used_memory', 'redisUsedBytes'],
    ] as const) {
      add(
        `${name}, end / start of ${soak} at ${footprint.rate}/s`,
        `${mebibytes(start[key])} → ${mebibytes(end[key])}`,
        '—',
        ratio(end[key], start[key]),
        `${target} ${within(start[key], end[key])}`,
      );
    }
  }
  return rows;
}

export function markdownTable(rows: Row[]): string {
  const header: Row = {
    figure: 'Figure',
    service: 'Service',
    reference: 'Reference',
    ratio: 'Ratio',
    target: 'Target',
  };
  const columns = Object.keys(header) as Array<keyof Row>;
  const widths = columns.map((c) => Math.max(...[header, ...rows].map((row) => row[c].length)));
  const line = (row: Row) =>
    `| ${columns.map((c, i) => row[c].padEnd(widths[i] ?? 0)).join(' | ')} |`;
  const rule = `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export interface RunFacts {
  date: string;
  cores: number;
  node: string;
  cpu: string;
  /** One-minute load average before the run: work already on the machine. */
  loadAverageAtStart: number;
  commit: string;
  wallSeconds: number;
  argv: string[];
  failure?: string;
}

export function writeResults(facts: RunFacts, figures: Figures, rows: Row[], notes: string[]) {
  const dir = join(BENCH_DIR, 'results');
  mkdirSync(dir, { recursive: true });
  const markdown = [
    `# pnpm bench ${facts.argv.join(' ')}`.trimEnd(),
    '',
    `${facts.date} · ${facts.cores} cores (${facts.cpu}) · Node ${facts.node} · ${facts.commit} · ` +
      `load average ${facts.loadAverageAtStart.toFixed(2)} at start · ${facts.wallSeconds.toFixed(0)} s wall`,
    ...(facts.failure ? ['', `**Run failed:** ${facts.failure}`] : []),
    '',
    markdownTable(rows),
    '',
    ...notes.map((note) => `- ${note}`),
    '',
  ].join('\n');
  writeFileSync(join(dir, 'latest.md'), markdown);
  writeFileSync(
    join(dir, 'latest.json'),
    `${JSON.stringify({ ...facts, rows, notes, figures }, null, 2)}\n`,
  );
  return { markdown, paths: [join(dir, 'latest.md'), join(dir, 'latest.json')] };
}
