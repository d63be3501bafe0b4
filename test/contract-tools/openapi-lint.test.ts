import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/test-api.js';
import { formatLintReport, lintOpenApiDocument, type LintReport } from './redocly-lint.js';
import { readServedDocument } from './served-document.js';

let api: TestApi;
let report: LintReport;

beforeAll(async () => {
  api = await startTestApi();
  report = await lintOpenApiDocument(await readServedDocument(api));
});

afterAll(async () => {
  await api?.close();
});

describe('the served OpenAPI document under redocly lint (redocly.yaml: recommended rules)', () => {
  it('has no errors and no warnings', () => {
    // The message lists every problem by rule, with its location, to fix the document from.
    const summary = formatLintReport(report);
    expect(report.errors + report.warnings, summary).toBe(0);
    expect(report.problems, summary).toEqual([]);
  });

  it('silences nothing with an ignore file: a rule turned off is argued for in redocly.yaml', () => {
    expect(report.ignored, formatLintReport(report)).toBe(0);
  });
});
