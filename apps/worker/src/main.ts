// Composition root of the worker process: configuration, clients, workers, shutdown.
// The queue consumers arrive with the ingestion pipeline; for now it starts, proves its
// services answer, and waits to be told to stop.
import { ConfigError, loadWorkerConfig, type WorkerConfig } from '@ingest/config';
import { checkDatabase, createDatabase } from '@ingest/db';
import { createLogger } from '@ingest/logger';
import { checkRedis, createRedisConnection } from '@ingest/queue';

function loadConfigOrExit(): WorkerConfig {
  try {
    return loadWorkerConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

const config = loadConfigOrExit();
const logger = createLogger({ level: config.log.level, name: 'worker' });

try {
  await Promise.all([checkDatabase(config.database.url), checkRedis(config.redis.url)]);
} catch (error) {
  console.error(`worker: cannot start: ${(error as Error).message}`);
  process.exit(1);
}

const db = createDatabase({ url: config.database.url, poolSize: config.database.poolSize });
const redis = createRedisConnection(config.redis.url, 'worker', 'ingest-worker');
logger.info('worker ready');

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  logger.info({ signal }, 'shutting down');
  await db.close();
  await redis.quit();
  logger.info('shut down cleanly');
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
