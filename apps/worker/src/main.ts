// The worker as a process: configuration, a check that its services answer, the runtime
// (runtime.ts), and a clean shutdown on SIGTERM or SIGINT.
import { loadWorkerConfig, loadConfigOrExit } from '@ingest/config';
import { checkDatabase, readDeploymentId } from '@ingest/db';
import { exitUnlessServicesAnswer, startTracing } from '@ingest/observability';
import { checkRedis, claimNamespace, holdNamespace } from '@ingest/queue';
import { createWorkerRuntime } from './runtime.js';

const config = loadConfigOrExit(loadWorkerConfig);
// First, so that every span of the process goes to the exporter (off unless configured).
const tracing = startTracing(config.tracing);
// A service that does not answer is one clear line and exit code 1, not a stack trace.
await exitUnlessServicesAnswer('worker', [
  checkDatabase(config.database.url),
  checkRedis(config.redis),
]);
// One deployment per Redis namespace: this database's id claims REDIS_KEY_PREFIX, and a
// prefix another deployment holds is refused, since the two would take each other's jobs.
const deploymentId = readDeploymentId(config.database.url);
await exitUnlessServicesAnswer('worker', [
  deploymentId.then((id) => claimNamespace(config.redis, id)),
]);
const { deps, httpAddress, close } = await createWorkerRuntime(config);
const { logger } = deps;
// The claim, made again every few seconds while the worker runs (a Redis restarted without
// persistence forgets it). Should another deployment hold the prefix meanwhile, the worker
// stops at once rather than drain: any job it takes from then on may be the other's. The
// jobs in flight are handed back, as when the grace period runs out (runtime.ts).
const hold = holdNamespace(deps.redis, config.redis.keyPrefix, await deploymentId, logger, () =>
  process.exit(1),
);
logger.info(
  { queues: config.worker.queues, concurrency: config.worker.concurrency, http: httpAddress },
  'worker ready',
);

let closing = false;
async function shutdown(signal: string): Promise<void> {
  // A second signal while draining is ignored, not obeyed: Ctrl-C reaches a process
  // twice when something between forwards it too, and dying then would cut the drain short.
  if (closing) {
    logger.info({ signal }, 'already shutting down; the signal is ignored');
    return;
  }
  closing = true;
  hold.stop();
  const graceMs = config.worker.shutdownGraceMs;
  logger.info({ signal, graceMs }, 'shutting down: taking no new jobs, finishing those in flight');
  try {
    // Jobs still running hold connections, so nothing else can close: exit, and their
    // transactions roll back as the connections drop.
    const closed = await close(graceMs);
    await tracing?.shutdown();
    if (closed === 'abandoned') process.exit(0);
    logger.info('shut down cleanly');
  } catch (error) {
    logger.error({ err: error }, 'error while shutting down');
    process.exitCode = 1;
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
