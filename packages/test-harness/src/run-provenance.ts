// What every results file of the bench and the fault suite records about the code and the
// machine behind its figures: a figure names its commit. Taken when a run starts: a long
// run in a working tree that others edit must record the code it built, not the code at
// its end.
import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { REPO_ROOT } from './repo-root.js';

/** Where the bench and the fault suite write: a run's own output is no change to the code. */
const RESULTS_FOLDERS = ['bench/results', 'test/faults/results'];

export interface RunProvenance {
  /** HEAD's short hash; `unknown commit` outside a git checkout. */
  commit: string;
  /** No tracked change and no new file outside the results folders. */
  clean: boolean;
  cpu: string;
  cores: number;
  node: string;
  /** One-minute load average before the run: work already on the machine. */
  loadAverageAtStart: number;
}

const git = (args: string[]) => execFileSync('git', args, { cwd: REPO_ROOT }).toString().trim();

function commitAndState(): Pick<RunProvenance, 'commit' | 'clean'> {
  try {
    const commit = git(['rev-parse', '--short', 'HEAD']);
    const outside = RESULTS_FOLDERS.map((folder) => `:(exclude)${folder}`);
    const changes = git(['status', '--porcelain', '--', '.', ...outside]);
    return { commit, clean: changes.length === 0 };
  } catch {
    return { commit: 'unknown commit', clean: false };
  }
}

export function runProvenance(): RunProvenance {
  return {
    ...commitAndState(),
    cpu: cpus()[0]?.model.trim() || 'unknown cpu',
    cores: availableParallelism(),
    node: process.version,
    loadAverageAtStart: loadavg()[0] ?? 0,
  };
}

/** `a0e37d4`, or `a0e37d4 + uncommitted changes` when the tree was not clean. */
export const describeCommit = ({ commit, clean }: Pick<RunProvenance, 'commit' | 'clean'>) =>
  clean ? commit : `${commit} + uncommitted changes`;
