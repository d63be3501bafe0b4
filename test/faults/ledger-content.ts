// The content tables and the attempts log, against the replay: what a single in-order
// application of the accepted events leaves behind, each event applied once.
import type { LedgerSnapshot, LogRow } from './ledger-queries.js';
import { canonical, type LedgerReport } from './ledger-report.js';
import type { ReplayModel } from './replay-model.js';

export function checkAttempts(
  snapshot: LedgerSnapshot,
  row: LogRow,
  what: string,
  report: LedgerReport,
): void {
  const counts = snapshot.attempts.get(row.id);
  if (counts === undefined) return;
  if (counts.succeeded > 1)
    report.duplicated.push(`${what} has ${counts.succeeded} succeeded attempts`);
  if (row.status === 'succeeded' && counts.succeeded === 0) {
    report.mismatches.push(`${what} succeeded without a succeeded attempt`);
  }
  if (counts.open > 0 && row.status !== 'queued' && row.status !== 'processing') {
    report.mismatches.push(`${what} is ${row.status} but ${counts.open} attempt(s) are still open`);
  }
  if (counts.rows !== counts.counter) {
    report.mismatches.push(`${what} counts ${counts.counter} attempts but logs ${counts.rows}`);
  }
}

export function compareContent(
  model: ReplayModel,
  snapshot: LedgerSnapshot,
  report: LedgerReport,
): void {
  const seen = new Set<string>();
  for (const article of snapshot.articles) {
    seen.add(article.slug);
    const expected = model.articles.get(article.slug);
    if (expected === undefined) {
      report.mismatches.push(`article ${article.slug} exists, but the replay ends without it`);
      continue;
    }
    const fields = [
      'title',
      'body',
      'excerpt',
      'cover',
      'category',
      'readMinutes',
      'readMinutesComputed',
    ] as const;
    for (const field of fields) {
      if (canonical(article[field]) !== canonical(expected[field])) {
        report.mismatches.push(
          `article ${article.slug}.${field} is ${canonical(article[field]).slice(0, 80)}, replay says ${canonical(expected[field]).slice(0, 80)}`,
        );
      }
    }
  }
  for (const slug of model.articles.keys()) {
    if (!seen.has(slug))
      report.mismatches.push(`article ${slug} is missing; the replay ends with it`);
  }

  const byTitle = new Map<string, Array<string | null>>();
  for (const highlight of snapshot.highlights) {
    byTitle.set(highlight.title, [...(byTitle.get(highlight.title) ?? []), highlight.articleSlug]);
  }
  for (const expected of model.highlights) {
    const found = byTitle.get(expected.title) ?? [];
    byTitle.delete(expected.title);
    if (found.length === 0) report.mismatches.push(`highlight "${expected.title}" is missing`);
    if (found.length > 1)
      report.duplicated.push(`highlight "${expected.title}" exists ${found.length} times`);
    const link = model.linkOf(expected);
    if (found.length === 1 && found[0] !== link) {
      report.mismatches.push(
        `highlight "${expected.title}" links to ${found[0]}, replay says ${link}`,
      );
    }
  }
  for (const [title, found] of byTitle) {
    report.duplicated.push(
      `highlight "${title}" exists ${found.length} times; the replay never made it`,
    );
  }
}
