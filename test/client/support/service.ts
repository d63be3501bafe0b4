import { randomBytes } from 'node:crypto';
import { IngestClient } from '@ingest/client';
import { freePort } from '@ingest/test-harness';
import { newTestTag } from '../../support/test-env.js';
import {
  startAppProcess,
  startWorkerProcess,
  type AppProcess,
} from '../../support/worker-process.js';

/** Lets the worker deliver webhooks to receivers on loopback, quickly. */
export const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
  WEBHOOK_RETRY_SCHEDULE: '0,200ms,200ms',
};

/**
 * The service as publishers meet it: the API and one worker, each a process of its own,
 * on the test database, with a queue of this file's own. The API can be killed and
 * started again on the same port.
 */
export interface RunningService {
  url: string;
  tag: string;
  api(): AppProcess;
  /** SIGKILLs the API (no goodbye to anyone) and starts it again on the same port. */
  killApi(): Promise<void>;
  startApi(): Promise<void>;
  stop(): Promise<void>;
}

/** `apiEnv`: settings of the API's beside the tests' own (a small rate limit, say). */
export async function startService(apiEnv: Record<string, string> = {}): Promise<RunningService> {
  const tag = newTestTag();
  const port = await freePort();
  const env = {
    REDIS_KEY_PREFIX: `test:${tag}`,
    JWT_SECRET: randomBytes(32).toString('hex'),
    PORT: String(port),
    ...WEBHOOK_ENV,
    ...apiEnv,
  };
  const startApi = () => startAppProcess('apps/api/src/server.ts', /Server listening/, env);
  let api = await startApi();
  const worker = await startWorkerProcess(tag, { ...WEBHOOK_ENV, WORKER_CONCURRENCY: '64' });
  return {
    url: `http://127.0.0.1:${port}`,
    tag,
    api: () => api,
    async killApi() {
      await api.stop('SIGKILL');
    },
    async startApi() {
      api = await startApi();
    },
    async stop() {
      await Promise.all([api.stop('SIGTERM'), worker.stop('SIGTERM')]);
    },
  };
}

/**
 * A client whose first send reaches the API, which records it and answers `status`; then
 * the API is SIGKILLed and the answer is lost on the way back, as when a process dies
 * mid-response. The client must send again, with the same keys, to an API that is
 * starting again. `killed()` tells whether that happened.
 */
export function clientLosingFirstAnswer(service: RunningService, apiKey: string, status: number) {
  let killed = false;
  const client = new IngestClient({
    baseUrl: service.url,
    apiKey,
    // Retries for a minute: under a full test run the API's restart (tsx compiling it
    // afresh) has taken longer than the 9 s that 20 attempts gave.
    retry: { attempts: 60, baseDelayMs: 200, maxDelayMs: 1_000 },
    fetch: async (request) => {
      const response = await fetch(request);
      if (killed) return response;
      killed = true;
      if (response.status !== status)
        throw new Error(`the first send was answered ${response.status}, not ${status}`);
      await service.killApi();
      void service.startApi();
      throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
    },
  });
  return { client, killed: () => killed };
}

/** A new account on `service`, logged in, with a publishing key: through the client. */
export async function newPublisher(
  service: RunningService,
  key: { requireSignature?: boolean } = {},
) {
  const anonymous = new IngestClient({ baseUrl: service.url });
  const suffix = randomBytes(4).toString('hex');
  const credentials = {
    email: `client-${suffix}@${service.tag}.test`,
    password: `correct horse ${suffix}`,
  };
  await anonymous.register({ ...credentials, handle: `client_${suffix}`, name: 'Client test' });
  const { token, account } = await anonymous.login(credentials);
  const owner = anonymous.with({ token });
  const created = await owner.apiKeys.create({
    name: 'client-test',
    scopes: ['content:create', 'content:read'],
    ...key,
  });
  return {
    account,
    credentials,
    token,
    owner,
    key: created,
    publisher: anonymous.with({ apiKey: created.key }),
  };
}
