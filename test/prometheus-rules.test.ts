// The Prometheus rules in deploy/prometheus: promtool accepts them and passes their unit
// tests, every alert has a test that fires it and one that keeps it quiet, and every alert
// carries a severity and a runbook that exists. test/prometheus-scrape.test.ts holds the
// series they read to what a real API and worker serve.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
});
