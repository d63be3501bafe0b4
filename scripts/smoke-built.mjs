// CI smoke test of the production bundles: starts apps/api/dist/server.js and
// apps/worker/dist/main.js as `pnpm start` would, then registers, creates a key and
// publishes an event with `Prefer: wait`. Catches what tests of the sources cannot: a
// dependency the bundle needs but the app does not declare, a broken build.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

const port = 3900 + Math.floor(Math.random() * 90);
const tag = randomBytes(4).toString('hex');
const env = {
  ...process.env,
  DATABASE_URL:
    process.env.TEST_DATABASE_URL ?? 'postgresql://postgres:postgres@127.0.0.1:5432/ingest_test',
  REDIS_KEY_PREFIX: `smoke:${tag}`,
  JWT_SECRET: randomBytes(32).toString('hex'),
  PORT: String(port),
  LOG_LEVEL: 'warn',
};
const children = [
  spawn(process.execPath, ['apps/api/dist/server.js'], { env, stdio: 'inherit' }),
  spawn(process.execPath, ['apps/worker/dist/main.js'], { env, stdio: 'inherit' }),
];
const base = `http://127.0.0.1:${port}`;

async function call(method, path, body, headers = {}) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

try {
  for (let tries = 0; ; tries += 1) {
    try {
      await fetch(`${base}/api/auth/me`);
      break;
    } catch {
      if (tries > 100) throw new Error('the built API never started listening');
      await sleep(100);
    }
  }
  const email = `smoke-${tag}@smoke.test`;
  const registered = await call('POST', '/api/auth/register', {
    email,
    password: 'smoke-password',
    handle: `smoke_${tag}`,
    name: 'Smoke',
  });
  if (registered.status !== 201) throw new Error(`register: ${registered.status}`);
  const auth = { authorization: `Bearer ${registered.body.token}` };
  const key = await call(
    'POST',
    '/api/webhooks/api-keys',
    { name: 'smoke', scopes: ['content:create'] },
    auth,
  );
  if (key.status !== 201) throw new Error(`key: ${key.status}`);
  const published = await call(
    'POST',
    '/api/webhooks/content',
    { event: 'article.create', data: { title: `Smoke ${tag}`, body: ['It works.'] } },
    { 'x-api-key': key.body.key, prefer: 'wait=20' },
  );
  if (published.status !== 200 || published.body.status !== 'succeeded') {
    throw new Error(`publish: ${published.status} ${JSON.stringify(published.body)}`);
  }
  const article = await call('GET', `/api/articles/${published.body.result.slug}`);
  if (article.status !== 200) throw new Error(`read: ${article.status}`);
  console.log(`smoke: the built API and worker applied ${published.body.result.slug}`);
} catch (error) {
  console.error(`smoke: FAILED: ${error.message}`);
  process.exitCode = 1;
} finally {
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((child) => new Promise((resolve) => child.once('exit', resolve))));
}
