// `pnpm start` (after install, migrate and build) and `pnpm dev`: runs the API and one
// worker side by side on local defaults, for trying the service on one machine.
// Production runs each app on its own: `pnpm --filter @ingest/api start`, and
// `pnpm --filter @ingest/worker start` as many times as you want workers.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import concurrently from 'concurrently';
import { localJwtSecret } from './local-jwt-secret.mjs';

const dev = process.argv.includes('--dev');
const env = { ...process.env };
// JWT_SECRET, when set, wins; otherwise this checkout's own (see local-jwt-secret.mjs).
if (env.JWT_SECRET === undefined || env.JWT_SECRET === '') {
  const { secret, path, created } = localJwtSecret(
    join(dirname(fileURLToPath(import.meta.url)), '..'),
  );
  env.JWT_SECRET = secret;
  if (created) console.log(`start: made a token secret for this checkout in ${path} (not in git)`);
}

const script = dev ? 'dev' : 'start';
const { result } = concurrently(
  [
    { name: 'api', command: `pnpm --filter @ingest/api ${script}`, env, prefixColor: 'cyan' },
    {
      name: 'worker',
      command: `pnpm --filter @ingest/worker ${script}`,
      env,
      prefixColor: 'magenta',
    },
  ],
  { killOthersOn: ['failure'], prefix: 'name' },
);
result.catch(() => {
  process.exitCode = 1;
});
