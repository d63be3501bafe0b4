// The layout every results file of the bench shares: a header naming the command, the
// machine, the commit and the run, then the body; its .json beside it starts with the same
// facts. Every writer in bench/ goes through writeResultsFile, so no file lacks them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeCommit, type RunProvenance } from '@ingest/test-harness';
import { BENCH_DIR } from './paths.js';

export interface Row {
  figure: string;
  service: string;
  reference: string;
  ratio: string;
  target: string;
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

/** The run: the code and the machine as they were at its start (runProvenance), and how it went. */
export interface RunFacts extends RunProvenance {
  date: string;
  wallSeconds: number;
  argv: string[];
  failure?: string;
}

/** The first lines of every results file: the command, the machine and the run. */
export function resultsHeader(facts: RunFacts): string[] {
  return [
    `# pnpm bench ${facts.argv.join(' ')}`.trimEnd(),
    '',
    `${facts.date} · ${facts.cores} cores (${facts.cpu}) · Node ${facts.node} · ` +
      `${describeCommit(facts)} · load average ${facts.loadAverageAtStart.toFixed(2)} at start · ` +
      `${facts.wallSeconds.toFixed(0)} s wall`,
    ...(facts.failure ? ['', `**Run failed:** ${facts.failure}`] : []),
  ];
}

export const noteLines = (notes: string[]) => notes.map((note) => `- ${note}`);

/**
 * Writes results/<name>.md (the header, then `body`) and, given `data`, results/<name>.json
 * (the run's facts, then `data`); returns the Markdown and the paths written.
 */
export function writeResultsFile(
  name: string,
  facts: RunFacts,
  body: string[],
  data?: Record<string, unknown>,
) {
  const dir = join(BENCH_DIR, 'results');
  mkdirSync(dir, { recursive: true });
  const markdown = [...resultsHeader(facts), '', ...body, ''].join('\n');
  const paths = [join(dir, `${name}.md`)];
  writeFileSync(paths[0]!, markdown);
  if (data) {
    paths.push(join(dir, `${name}.json`));
    writeFileSync(paths[1]!, `${JSON.stringify({ ...facts, ...data }, null, 2)}\n`);
  }
  return { markdown, paths };
}
