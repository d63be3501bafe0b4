// The worker as a process: configuration, a check that its services answer, the runtime
// (runtime.ts), and a clean shutdown on SIGTERM or SIGINT.
import { loadWorkerConfig, loadConfigOrExit } from '@ingest/config';
import { checkDatabase, readDeploymentId } from '@ingest/db';
import { exitUnlessServicesAnswer, startTracing } from '@ingest/observability';
import { checkRedis, claimNamespace } from '@ingest/queue';
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
await exitUnlessServicesAnswer('worker', [
  readDeploymentId(config.database.url).then((id) => claimNamespace(config.redis, id)),
]);
const { deps, httpAddress, close } = await createWorkerRuntime(config);
const { logger } = deps;
logger.info(
  { queues: config.worker.queues, concurrency: config.worker.concurrency, http: httpAddress },
  'worker ready',
);

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
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
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
