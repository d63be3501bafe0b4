// `pnpm start` (after install, migrate and build) and `pnpm dev`: runs the API and one
// worker side by side on local defaults, for trying the service on one machine.
// Production runs each app on its own: `pnpm --filter @ingest/api start`, and
// `pnpm --filter @ingest/worker start` as many times as you want workers.
import concurrently from 'concurrently';

const dev = process.argv.includes('--dev');
const env = { ...process.env };
if (env.JWT_SECRET === undefined || env.JWT_SECRET === '') {
  // A public secret is fine for a local trial and refused anywhere this flag is not set.
  env.ALLOW_INSECURE_DEV_SECRET = 'true';
  console.log('start: JWT_SECRET is not set; using the public development secret (local use only)');
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
