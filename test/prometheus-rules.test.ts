// The Prometheus rules in deploy/prometheus: promtool accepts them and passes their unit
// tests, every alert has a test that fires it and one that keeps it quiet, every alert
// carries a severity and a runbook that exists, and every series a rule reads is one the
// service registers.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@ingest/test-harness';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

interface RuleFile {
  groups: Array<{ name: string; rules: Rule[] }>;
}

interface RuleTestFile {
  tests: Array<{
    name: string;
    alert_rule_test?: Array<{ alertname: string; exp_alerts?: unknown[] }>;
  }>;
}

const DIR = join(REPO_ROOT, 'deploy/prometheus');
const readYaml = (path: string): unknown => parse(readFileSync(join(REPO_ROOT, path), 'utf8'));
const rules = (readYaml('deploy/prometheus/rules.yml') as RuleFile).groups.flatMap(
  (group) => group.rules,
);
const alerts = rules.filter((rule): rule is Rule & { alert: string } => rule.alert !== undefined);
const ruleTests = (readYaml('deploy/prometheus/rules.test.yml') as RuleTestFile).tests.flatMap(
  (test) => test.alert_rule_test ?? [],
);

function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { cwd: DIR, encoding: 'utf8' });
  if (run.error) {
    throw new Error(`promtool did not run (${run.error.message}): apt-get install prometheus`);
  }
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/**
 * The metric names the service registers, read from the source that registers them: every
 * `'ingest_…'` string literal in these files is a metric's name, whether given as `name:`
 * or, for the event log's gauges, in a list of [name, help, field]. Reading the source
 * rather than a scrape needs no running API, worker, PostgreSQL or Redis, and sees the
 * series that appear only on some event (a counter's first increment) as well.
 */
function registeredMetricNames(): Set<string> {
  const observability = join(REPO_ROOT, 'packages/observability/src');
  const files = [
    'apps/api/src/metrics.ts',
    'apps/api/src/plugins/metrics.ts',
    'apps/worker/src/metrics.ts',
    ...readdirSync(observability)
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
      .map((file) => join('packages/observability/src', file)),
  ];
  const names = files.flatMap((file) =>
    [...readFileSync(join(REPO_ROOT, file), 'utf8').matchAll(/'(ingest_[a-z0-9_]+)'/g)].map(
      (match) => match[1] ?? '',
    ),
  );
  return new Set(names);
}

const PROMQL_WORDS = new Set(['and', 'or', 'unless', 'offset', 'bool', 'inf', 'nan']);

/**
 * The series names an expression reads: what is left once strings, label matchers, ranges,
 * grouping clauses (`by (...)`, `on (...)`, ...) and function calls' names are taken out.
 */
function seriesNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\boffset\s+\w+/g, ' ');
  return [...bare.matchAll(/(?<![\w:.])([a-zA-Z_:][\w:]*)(?![\w:]|\s*\()/g)]
    .map((match) => match[1] ?? '')
    .filter((name) => !PROMQL_WORDS.has(name.toLowerCase()));
}

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as '-'. */
const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

describe('Prometheus rules (deploy/prometheus)', () => {
  it('pass promtool check rules', () => {
    const { status, output } = promtool('check', 'rules', 'rules.yml');
    expect(status, output).toBe(0);
  });

  // promtool evaluates every test's hours of series minute by minute: seconds, not millis.
  it('pass their promtool unit tests', { timeout: 120_000 }, () => {
    const { status, output } = promtool('test', 'rules', 'rules.test.yml');
    expect(status, output).toBe(0);
  });

  it('test every alert firing and staying quiet, and no alert that does not exist', () => {
    expect(alerts.length).toBeGreaterThan(0);
    const names = new Set(alerts.map((rule) => rule.alert));
    const firing = new Set(
      ruleTests.filter((t) => (t.exp_alerts ?? []).length > 0).map((t) => t.alertname),
    );
    const quiet = new Set(
      ruleTests.filter((t) => (t.exp_alerts ?? []).length === 0).map((t) => t.alertname),
    );
    expect([...names].filter((name) => !firing.has(name))).toEqual([]);
    expect([...names].filter((name) => !quiet.has(name))).toEqual([]);
    expect(ruleTests.map((t) => t.alertname).filter((name) => !names.has(name))).toEqual([]);
  });

  it('give every alert a severity, a summary, a description and a runbook in docs/operations.md', () => {
    const operations = readFileSync(join(REPO_ROOT, 'docs/operations.md'), 'utf8');
    const anchors = new Set(
      [...operations.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1] ?? '')),
    );
    for (const rule of alerts) {
      expect(['page', 'ticket'], rule.alert).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, rule.alert).toBeTruthy();
      expect(rule.annotations?.description, rule.alert).toBeTruthy();
      const runbook = /^docs\/operations\.md#(.+)$/.exec(rule.annotations?.runbook_url ?? '');
      expect(runbook?.[1], `${rule.alert}: runbook_url`).toBeDefined();
      expect(anchors.has(runbook?.[1] ?? ''), `${rule.alert}: ${runbook?.[1]}`).toBe(true);
    }
  });

  it('read only series the service registers, or that the rules record', () => {
    const registered = registeredMetricNames();
    // A regex that stopped matching would make every name "unknown": check it finds some.
    expect(registered).toContain('ingest_queue_up');
    expect(registered).toContain('ingest_event_log_premade_hours');
    expect(registered).toContain('ingest_jobs_processed_total');
    const recorded = new Set(rules.flatMap((rule) => (rule.record ? [rule.record] : [])));
    const known = (name: string) =>
      recorded.has(name) ||
      registered.has(name) ||
      // A histogram's series: <name>_bucket, <name>_sum and <name>_count.
      registered.has(name.replace(/_(?:bucket|sum|count)$/, ''));
    const unknown = rules.flatMap((rule) =>
      seriesNames(rule.expr)
        .filter((name) => !known(name))
        .map((name) => `${rule.alert ?? rule.record}: ${name}`),
    );
    expect(unknown).toEqual([]);
    expect(seriesNames('sum by (le) (rate(foo_bucket{a="b"}[5m])) / on () bar offset 1h')).toEqual([
      'foo_bucket',
      'bar',
    ]);
  });
});
