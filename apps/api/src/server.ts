// The API as a process: configuration, a check that its services answer, the runtime
// (runtime.ts), listen, and a clean shutdown on SIGTERM or SIGINT.
import { loadApiConfig, loadConfigOrExit } from '@ingest/config';
import { checkDatabase, readDeploymentId } from '@ingest/db';
import { exitUnlessServicesAnswer, startTracing } from '@ingest/observability';
import { checkRedis, claimNamespace, holdNamespace } from '@ingest/queue';
import { createApiRuntime } from './runtime.js';

const config = loadConfigOrExit(loadApiConfig);
// First, so that every span of the process goes to the exporter (off unless configured).
const tracing = startTracing(config.tracing);
// A service that does not answer is one clear line and exit code 1, not a stack trace.
await exitUnlessServicesAnswer('api', [
  checkDatabase(config.database.url),
  checkRedis(config.redis),
]);
// One deployment per Redis namespace: this database's id claims REDIS_KEY_PREFIX, and a
// prefix another deployment holds is refused, since the two would take each other's jobs.
const deploymentId = readDeploymentId(config.database.url);
await exitUnlessServicesAnswer('api', [
  deploymentId.then((id) => claimNamespace(config.redis, id)),
]);
const { app, deps, close } = await createApiRuntime(config);
const { logger } = deps;
// The claim, made again every few seconds while the API runs (a Redis restarted without
// persistence forgets it). Should another deployment hold the prefix meanwhile, the API
// stops at once: every event it queues from then on would go to that deployment's workers.
const hold = holdNamespace(deps.redis, config.redis.keyPrefix, await deploymentId, logger, () =>
  process.exit(1),
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
  logger.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
  try {
    await close();
    await tracing?.shutdown();
    logger.info('shut down cleanly');
  } catch (error) {
    logger.error({ err: error }, 'error while shutting down');
    process.exitCode = 1;
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

await app.listen({ host: config.http.host, port: config.http.port });
