// The floor's worker: one transaction per job (INSERT an article row built from the log
// row's payload, mark the log row succeeded), BullMQ concurrency 32. Its drain rate and
// lag are the yardstick for the service worker's.
import { Worker } from 'bullmq';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import pg from 'pg';
import { exitWithParent } from './exit-with-parent.js';
import { FLOOR_PREFIX, FLOOR_QUEUE } from './floor-schema.js';
import { floorEnv } from './floor-env.js';

const env = floorEnv();
const pool = new pg.Pool({ connectionString: env.databaseUrl, max: env.poolSize });
const connection = new Redis(env.redisUrl, { maxRetriesPerRequest: null });

async function applyJob(logId: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO floor_article (log_id, account_id, title, body)
       SELECT id, account_id, payload->'data'->>'title', payload->'data'->'body'
       FROM floor_log WHERE id = $1`,
      [logId],
    );
    await client.query(
      `UPDATE floor_log SET status = 'succeeded', finished_at = now() WHERE id = $1`,
      [logId],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

const worker = new Worker<{ logId: string }>(FLOOR_QUEUE, (job) => applyJob(job.data.logId), {
  connection,
  prefix: FLOOR_PREFIX,
  concurrency: env.concurrency,
});
worker.on('error', () => {});

// The same readiness probe as the service worker's, so the runner waits on both alike.
const http = Fastify({ logger: false });
http.get('/health/ready', async () => {
  await Promise.all([pool.query('SELECT 1'), connection.ping()]);
  return { status: 'ok' };
});

async function shutdown(): Promise<void> {
  await worker.close();
  await http.close();
  await pool.end();
  connection.disconnect();
}
process.once('SIGTERM', () => void shutdown());
exitWithParent();
await http.listen({ host: '127.0.0.1', port: env.port });
