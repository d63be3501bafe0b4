import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './repo-root.js';
import { describeCommit, runProvenance } from './run-provenance.js';

describe('runProvenance', () => {
  it('names a commit of this repository and the machine', () => {
    const provenance = runProvenance();
    // Throws unless the hash is a commit of the history: a citation a reader can follow.
    execFileSync('git', ['cat-file', '-e', `${provenance.commit}^{commit}`], { cwd: REPO_ROOT });
    expect(provenance.commit).toMatch(/^[0-9a-f]{7,40}$/);
    expect(provenance.cores).toBeGreaterThan(0);
    expect(provenance.cpu).not.toBe('');
    expect(provenance.loadAverageAtStart).toBeGreaterThanOrEqual(0);
  });

  it('says when the tree had changes', () => {
    expect(describeCommit({ commit: 'a0e37d4', clean: true })).toBe('a0e37d4');
    expect(describeCommit({ commit: 'a0e37d4', clean: false })).toBe(
      'a0e37d4 + uncommitted changes',
    );
  });
});
