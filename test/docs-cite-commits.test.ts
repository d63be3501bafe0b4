// Every commit a document cites is in the history (issue 29: a figure names its code, and
// a reader must be able to check out that code). The documents are every Markdown file
// git knows of, tracked or new: the README, docs/, package READMEs, bench/results/ and
// test/faults/results/. A citation is a lowercase hex token, word-bounded, of 7 to 12
// characters (git's short hashes) or exactly 40, with a digit and a letter; a results
// file's name counts as well. Not citations: fenced code blocks (example output), UUIDs
// (whole, or cut short with an ellipsis), colours (#a1b2c3d4). A test rather than a step
// of .ci/run: `pnpm test` runs it on a developer's machine as in CI, where the clone has
// the whole history.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The repository this file belongs to. */
const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

interface Citation {
  /** Where: `path:line`, or `path (name)` for a hash in the file's name. */
  where: string;
  sha: string;
}

const HEX_TOKEN = /\b[0-9a-f]{7,40}\b/g;
const UUID = /\b[0-9a-f]{8}-(?:[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|…)/g;
const FENCE = /^\s*(```|~~~)/;

const looksLikeCommit = (token: string) =>
  (token.length <= 12 || token.length === 40) && /\d/.test(token) && /[a-f]/.test(token);

/** The hashes in `text` that look like commits. */
function citationsIn(text: string): string[] {
  const plain = text.replaceAll(UUID, ' ');
  return [...plain.matchAll(HEX_TOKEN)]
    .filter((match) => plain[match.index - 1] !== '#' && looksLikeCommit(match[0]))
    .map((match) => match[0]);
}

/** The commits `markdown` cites, line by line, outside fenced code blocks. */
function citations(markdown: string, path: string): Citation[] {
  const found: Citation[] = [];
  let fenced = false;
  for (const [index, line] of markdown.split('\n').entries()) {
    if (FENCE.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    for (const sha of citationsIn(line)) found.push({ where: `${path}:${index + 1}`, sha });
  }
  return found;
}

const git = (args: string[], input?: string) =>
  execFileSync('git', args, { cwd: REPO_ROOT, input, encoding: 'utf8' });

/** Every Markdown file git knows of: tracked, or new and not ignored. */
const documents = () =>
  git(['ls-files', '--cached', '--others', '--exclude-standard', '-z', '--', '*.md'])
    .split('\0')
    .filter((path) => path !== '');

/** The citations whose hash names no commit of the history (missing, or ambiguous). */
function unresolved(found: Citation[]): Citation[] {
  const shas = [...new Set(found.map((c) => c.sha))];
  if (shas.length === 0) return [];
  const answers = git(['cat-file', '--batch-check'], shas.map((s) => `${s}^{commit}\n`).join(''))
    .trimEnd()
    .split('\n');
  const missing = new Set(shas.filter((_, i) => !/^[0-9a-f]{40} commit\b/.test(answers[i] ?? '')));
  return found.filter((c) => missing.has(c.sha));
}

describe('commits cited by documents', () => {
  it('finds citations, and passes over code blocks, UUIDs and colours', () => {
    const markdown = [
      'Measured on a0e37d4 + uncommitted changes (`9d5092d`); history-runs/x-31395b7.md.',
      'Full hash 1a86757c0ffee00000000000000000000000beef, 1,000,000 events, decade.',
      'request 01a20148-e1b0-7526-bdda-cc66b6a7ebe6, id 53fc38fc-…, colour #a1b2c3d4',
      '```',
      'slug post-ea0bb758',
      '```',
    ].join('\n');
    expect(citations(markdown, 'x.md')).toEqual([
      { where: 'x.md:1', sha: 'a0e37d4' },
      { where: 'x.md:1', sha: '9d5092d' },
      { where: 'x.md:1', sha: '31395b7' },
      { where: 'x.md:2', sha: '1a86757c0ffee00000000000000000000000beef' },
    ]);
  });

  it('every cited commit is in the history', () => {
    // A shallow clone lacks old commits: it would flag citations that are fine.
    expect(git(['rev-parse', '--is-shallow-repository']).trim()).toBe('false');
    const found = documents().flatMap((path) => [
      ...citations(readFileSync(join(REPO_ROOT, path), 'utf8'), path),
      ...citationsIn(basename(path)).map((sha) => ({ where: `${path} (name)`, sha })),
    ]);
    expect(found.length).toBeGreaterThan(0);
    const bad = unresolved(found).map(({ where, sha }) => `${where}: ${sha}`);
    expect(bad, 'documents cite commits that are not in the history').toEqual([]);
  });
});
