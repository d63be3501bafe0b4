// The floor: the least an ingest endpoint can do on this machine, as a yardstick for the
// service's figures. It checks the key in memory, records the event with one INSERT and
// queues it with one BullMQ add, then answers 202. No validation, no rate limit, no
// logging, no idempotency: it is not product code.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import pg from 'pg';
import { exitWithParent } from './exit-with-parent.js';
import { FLOOR_PREFIX, FLOOR_QUEUE } from './floor-schema.js';
import { FLOOR_JOB_OPTIONS, floorEnv } from './floor-env.js';

const env = floorEnv();
const accountByKey = new Map(Object.entries(JSON.parse(env.keysJson) as Record<string, string>));
const pool = new pg.Pool({ connectionString: env.databaseUrl, max: env.poolSize });
const redis = new Redis(env.redisUrl, { maxRetriesPerRequest: 1 });
const queue = new Queue(FLOOR_QUEUE, { connection: redis, prefix: FLOOR_PREFIX });

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });

app.get('/health/ready', async () => {
  await Promise.all([pool.query('SELECT 1'), redis.ping()]);
  return { status: 'ok' };
});

app.post('/api/webhooks/content', async (request, reply) => {
  const key = request.headers['x-api-key'];
  const accountId = typeof key === 'string' ? accountByKey.get(key) : undefined;
  if (accountId === undefined) return reply.code(401).send({ code: 'UNAUTHENTICATED' });
  const body = request.body as { event?: unknown } | null;
  if (typeof body?.event !== 'string') return reply.code(400).send({ code: 'VALIDATION_FAILED' });

  const id = randomUUID();
  const { rows } = await pool.query<{ received_at: Date }>(
    `INSERT INTO floor_log (id, account_id, event, payload, request_id, status)
     VALUES ($1, $2, $3, $4, $5, 'queued') RETURNING received_at`,
    [id, accountId, body.event, body, request.id],
  );
  // Like the service's jobs, the job carries the id only; the worker reads the row.
  await queue.add(body.event, { logId: id }, { ...FLOOR_JOB_OPTIONS, jobId: id });
  return reply
    .code(202)
    .send({ id, event: body.event, status: 'queued', receivedAt: rows[0]?.received_at });
});

async function shutdown(): Promise<void> {
  await app.close();
  await queue.close();
  await pool.end();
  redis.disconnect();
}
process.once('SIGTERM', () => void shutdown());
exitWithParent();
await app.listen({ host: '127.0.0.1', port: env.port });
