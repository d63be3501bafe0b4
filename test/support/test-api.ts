import { Writable } from 'node:stream';
import type { ApiDeps } from '@ingest/api/deps';
import { createApiRuntime, type ApiApp } from '@ingest/api/runtime';
import { loadApiConfig, type Env } from '@ingest/config';
import { purgeAccountEvents } from '@ingest/event-log';
import { createLogger } from '@ingest/logger';
import { newTestTag, testEnv } from './test-env.js';

export type TestApp = ApiApp;

export interface TestApi {
  app: TestApp;
  deps: ApiDeps;
  /** Tag of this API's data: its Redis prefix, and the domain of accounts made with it. */
  tag: string;
  /** Every log line the app wrote, as raw JSON text. */
  logLines: string[];
  close: () => Promise<void>;
}

/**
 * The API's own runtime (apps/api/src/runtime.ts) on the test database and the machine's
 * Redis, with its logs captured; closing it also removes the data it made.
 */
export async function startTestApi(
  overrides: Env = {},
  beforeReady?: (app: TestApp) => void,
): Promise<TestApi> {
  const tag = newTestTag();
  const config = loadApiConfig(testEnv(tag, overrides));
  const logLines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const runtime = await createApiRuntime(config, {
    logger: createLogger({ level: config.log.level, name: 'api', destination }),
    connectionName: `test-api-${tag}`,
    async beforeDisconnect({ db, redis }) {
      const accounts = await db.prisma.account.findMany({
        where: { email: { endsWith: `@${tag}.test` } },
        select: { id: true },
      });
      const ids = accounts.map((account) => account.id);
      // Left behind, this file's queued events would be re-queued by other files' workers.
      await purgeAccountEvents(db.pool, ids);
      await db.prisma.account.deleteMany({ where: { id: { in: ids } } });
      // A cluster is the test's own, and goes with it; KEYS would see one node only.
      if (config.redis.cluster !== null) return;
      const keys = await redis.keys(`${config.redis.keyPrefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
    },
  });
  beforeReady?.(runtime.app);
  await runtime.app.ready();
  return { app: runtime.app, deps: runtime.deps, tag, logLines, close: runtime.close };
}
