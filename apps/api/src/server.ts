// The API as a process: configuration, a check that its services answer, the runtime
// (runtime.ts), listen, and a clean shutdown on SIGTERM or SIGINT.
import { loadApiConfig, loadConfigOrExit } from '@ingest/config';
import { checkDatabase, readDeploymentId } from '@ingest/db';
import { exitUnlessServicesAnswer, startTracing } from '@ingest/observability';
import { checkRedis, claimNamespace } from '@ingest/queue';
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
await exitUnlessServicesAnswer('api', [
  readDeploymentId(config.database.url).then((id) => claimNamespace(config.redis, id)),
]);
const { app, deps, close } = await createApiRuntime(config);
const { logger } = deps;

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
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
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));

await app.listen({ host: config.http.host, port: config.http.port });
