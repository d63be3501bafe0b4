// `pnpm images:smoke`: builds the API and worker images and runs the stack that
// docker-compose.yml describes, without Docker: `buildah bud` builds, `buildah run` runs
// each service's command with its environment, read from the compose file so that the two
// cannot drift. PostgreSQL and Redis are private servers on free ports (the images' own
// processes share this machine's network). It then publishes an article through the API
// and the workers, checks every health endpoint and the images' HEALTHCHECKs, checks the
// processes are not root, stops them with SIGTERM and checks they exit cleanly.
// Slow (minutes the first time): not part of `pnpm test`. See docs/operations.md.
import { randomBytes } from 'node:crypto';
import { startPrivateRedis, type PrivateRedis } from '@ingest/test-harness';
import { startPrivatePostgres, type PrivatePostgres } from '@ingest/test-harness/private-postgres';
import { BASE_IMAGE, ensureBaseImage } from './base-image.js';
import { buildImage, imageSize } from './build-images.js';
import { composeService, readComposeFile } from './compose-file.js';
import { imageConfig } from './containers.js';
import { publishAndRead } from './publish.js';
import { ServiceRunner } from './service-runner.js';

const timings: Array<[string, number]> = [];
const log = (line: string) => console.log(`images:smoke: ${line}`);

async function step<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  log(`${label}...`);
  const result = await work();
  timings.push([label, Date.now() - started]);
  return result;
}

const API_IMAGE = 'localhost/ingest-api:smoke';
const WORKER_IMAGE = 'localhost/ingest-worker:smoke';

const compose = readComposeFile();
const apiService = composeService(compose, 'api');
const workerService = composeService(compose, 'worker');
const migrateService = composeService(compose, 'migrate');

const startedAt = Date.now();
let madeBase = false;
let postgres: PrivatePostgres | undefined;
let redis: PrivateRedis | undefined;
const runner = new ServiceRunner(log);
let failed = false;
try {
  madeBase = await step('base image', () => ensureBaseImage(log));
  await step('api image', () => buildImage(apiService, API_IMAGE, BASE_IMAGE));
  await step('worker image', () => buildImage(workerService, WORKER_IMAGE, BASE_IMAGE));

  [postgres, redis] = await step('private PostgreSQL and Redis', () =>
    Promise.all([startPrivatePostgres({ migrate: false }), startPrivateRedis()]),
  );
  runner.useServers({ postgres: postgres.port, redis: redis.port });
  runner.useVariables({ JWT_SECRET: randomBytes(32).toString('hex') });

  for (const image of [API_IMAGE, WORKER_IMAGE]) {
    const { user } = await imageConfig(image);
    const uid = Number(user.split(':')[0]);
    if (!(uid > 0)) throw new Error(`${image} runs as "${user}", not as a numeric non-root user`);
  }

  const migrated = await step('migrate (one-shot)', () =>
    runner.runOnce('migrate', migrateService, API_IMAGE),
  );
  if (!/applied \d{14}_/.test(migrated)) throw new Error(`migrate applied nothing:\n${migrated}`);

  const api = await step('api ready', () => runner.start('api', apiService, API_IMAGE, 'PORT'));
  const replicas = workerService.deploy?.replicas ?? 1;
  await step(`${replicas} workers ready`, async () => {
    for (let i = 1; i <= replicas; i += 1) {
      await runner.start(`worker-${i}`, workerService, WORKER_IMAGE, 'WORKER_HTTP_PORT');
    }
  });

  const slug = await step('publish and read an article', () => publishAndRead(runner.urlOf(api)));
  log(`article ${slug} applied`);
  await step('health endpoints and HEALTHCHECKs', () => runner.checkHealth());
  await step('non-root processes', () => runner.checkNonRoot());
  await step('SIGTERM: clean exits', () => runner.stopAll());
} catch (error) {
  failed = true;
  console.error(`images:smoke: FAILED: ${(error as Error).message}`);
  for (const { name, lines } of runner.logs()) {
    console.error(`--- ${name} (last lines)\n${lines.slice(-15).join('\n')}`);
  }
} finally {
  await runner.cleanUp();
  await postgres?.destroy();
  await redis?.stop();
}

const sizes = await Promise.all([API_IMAGE, WORKER_IMAGE, BASE_IMAGE].map(imageSize));
console.log('\nimages:smoke summary');
timings.push(['total', Date.now() - startedAt]);
for (const [label, ms] of timings) console.log(`  ${label.padEnd(34)} ${(ms / 1000).toFixed(1)} s`);
console.log(`  base image ${madeBase ? 'made' : 'reused (cached)'}`);
for (const line of sizes) console.log(`  ${line}`);
console.log(failed ? '  FAILED' : '  passed');
process.exitCode = failed ? 1 : 0;
