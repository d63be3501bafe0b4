import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './served-document.js';

export const REDOCLY_BIN = join(REPO_ROOT, 'node_modules', '.bin', 'redocly');
export const REDOCLY_CONFIG = join(REPO_ROOT, 'redocly.yaml');

export interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  /** JSON pointers into the document, the first one where the problem is. */
  pointers: string[];
}

export interface LintReport {
  errors: number;
  warnings: number;
  /** Problems silenced by a `.redocly.lint-ignore.yaml` next to the config. */
  ignored: number;
  problems: LintProblem[];
}

interface RedoclyJsonOutput {
  totals?: { errors?: unknown; warnings?: unknown; ignored?: unknown };
  problems?: {
    ruleId?: unknown;
    severity?: unknown;
    message?: unknown;
    location?: { pointer?: unknown }[];
  }[];
}

/**
 * Lints an OpenAPI document (JSON text) with the installed Redocly CLI and the
 * repository's redocly.yaml, the way a developer or CI would run it:
 * `redocly lint <file> --config redocly.yaml --format=json`.
 */
export async function lintOpenApiDocument(documentText: string): Promise<LintReport> {
  const directory = await mkdtemp(join(tmpdir(), 'openapi-lint-'));
  try {
    const file = join(directory, 'openapi.json');
    // Indented, so that a location's line is readable if someone runs the CLI by hand.
    await writeFile(file, JSON.stringify(JSON.parse(documentText), null, 2));
    const run = await runRedocly([
      'lint',
      file,
      '--config',
      REDOCLY_CONFIG,
      '--format=json',
      // The default keeps 100; every problem is wanted, and the totals count them all.
      '--max-problems=100000',
      // A mistyped key in redocly.yaml must fail the lint, not quietly lint with less.
      '--lint-config=error',
    ]);
    return parseReport(run);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** One line a problem, grouped by rule: what a failing test prints. */
export function formatLintReport(report: LintReport): string {
  const byRule = new Map<string, LintProblem[]>();
  for (const problem of report.problems) {
    const key = `${problem.severity} ${problem.ruleId}`;
    byRule.set(key, [...(byRule.get(key) ?? []), problem]);
  }
  const lines = [
    `redocly lint: ${report.errors} errors, ${report.warnings} warnings, ${report.ignored} ignored`,
  ];
  for (const [rule, problems] of byRule) {
    lines.push('', `${rule} (${problems.length})`);
    for (const problem of problems) {
      lines.push(`  ${problem.pointers[0] ?? '(no location)'}: ${problem.message}`);
    }
  }
  return lines.join('\n');
}

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runRedocly(args: string[]): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(REDOCLY_BIN, args, {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        // No network from a test: no usage telemetry, no update check.
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function parseReport(run: RunResult): LintReport {
  // Exit code 1 means "problems found" and still prints the report; anything else, or no
  // report, is the CLI failing (a bad redocly.yaml exits 2 and explains on stderr).
  const failure = (why: string) =>
    new Error(`${why}\n--- stderr ---\n${run.stderr.trim()}\n--- stdout ---\n${run.stdout}`);
  if (run.code !== 0 && run.code !== 1) throw failure(`redocly exited with code ${run.code}`);
  let output: RedoclyJsonOutput;
  try {
    output = JSON.parse(run.stdout);
  } catch {
    throw failure('redocly printed no JSON report');
  }
  const totals = output.totals;
  if (
    typeof totals?.errors !== 'number' ||
    typeof totals.warnings !== 'number' ||
    !Array.isArray(output.problems)
  ) {
    throw failure('redocly printed a report of an unexpected shape');
  }
  return {
    errors: totals.errors,
    warnings: totals.warnings,
    ignored: typeof totals.ignored === 'number' ? totals.ignored : 0,
    problems: output.problems.map((problem) => ({
      ruleId: String(problem.ruleId),
      severity: problem.severity === 'error' ? 'error' : 'warn',
      message: String(problem.message),
      pointers: (problem.location ?? []).map((location) => String(location.pointer)),
    })),
  };
}
