// The batches phase's third figure (issue 32): the `ingest` CLI publishing a file with
// batches, end to end against one service worker (from the publish's start to its last
// event applied), against that worker's drain rate of as many creates queued ahead, the
// drain measured as the drain phase measures it (drain.ts), once before the CLI and once
// after: the CLI is bounded by the drain when its ratio is near 1.
//
// The CLI runs on its shipped defaults (`--batch-size 100`, `--concurrency 4` batches in
// flight), as a publisher runs it; a built CLI whose `publish --help` does not name
// `--batch-size` sends one event a call, and the row says so.
import type { BenchEnvironment } from '../bench-environment.js';
import { drainOnce, serviceWorkers } from '../phases/drain.js';
import type { BatchCliRun } from './batch-result.js';
import { cliEnvironment, cliPublishHas, runCli } from './bulk-publish.js';
import { withCliWorkspace } from './cli-workspace.js';
import { timePublish, withWorker } from './timed-publish.js';

const BATCH_SIZE_FLAG = '--batch-size';

export async function cliAgainstDrain(env: BenchEnvironment): Promise<BatchCliRun> {
  const { cliEvents: events, cliWatchdogSeconds } = env.options.plan;
  const batchSizeFlag = await cliPublishHas(BATCH_SIZE_FLAG);
  const drain = (label: string) =>
    drainOnce(env, 'service', `batches: ${label}`, serviceWorkers(env, 1), {
      events,
      mix: 'creates',
    });
  const before = await drain('drain of the creates before the CLI');
  const run = await withCliWorkspace(env, 'batchcli', events, async (workspace) => {
    const args = ['publish', '--file', workspace.file];
    const cliEnv = cliEnvironment(env.api.baseUrl, workspace.publisher.key, workspace.configDir);
    const label = `ingest ${args.slice(0, 2).join(' ')} (its defaults)`;
    const timed = await withWorker(env, (worker) =>
      timePublish(env, label, workspace.publisher, worker, {
        events,
        phase: 'batches',
        processes: [{ name: 'cli', exitedChildren: true }],
        run: async () => {
          const cli = await runCli(args, cliEnv, cliWatchdogSeconds * 1000);
          if (cli.code !== 0) {
            throw new Error(`batches: the CLI exited ${cli.code}; see ${cli.logFile}`);
          }
        },
      }),
    );
    return { args: args.filter((arg) => arg !== workspace.file), run: timed.run };
  });
  const after = await drain('drain of the creates after the CLI');
  if (!batchSizeFlag) {
    env.notes.push(
      `Batches phase: the built CLI has no ${BATCH_SIZE_FLAG} (its publish --help does not name ` +
        'it), so it sent one event a call: the CLI row measures the CLI of this commit, not batches.',
    );
  }
  return {
    ...run,
    batchSizeFlag,
    drains: [before, after],
    drainRate: (before.rate + after.rate) / 2,
  };
}
