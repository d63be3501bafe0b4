// `pnpm start` and `pnpm dev`: runs the API and one worker side by side on local defaults,
// for trying the service on one machine. In order: find PostgreSQL and Redis (or say at
// once what is missing), install (start only), serve an embedded PostgreSQL and a private
// redis-server where none answers, migrate, build (start only), run the apps; when they
// exit (Ctrl-C, SIGTERM), stop what it served.
// Production runs each app on its own: `pnpm --filter @ingest/api start`, and
// `pnpm --filter @ingest/worker start` as many times as you want workers.
// Plain node with no dependency until `pnpm install` has run: a fresh clone starts here.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { planEngines, startEngines } from './local-engines.mjs';
import { localJwtSecret } from './local-jwt-secret.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dev = process.argv.includes('--dev');

const plan = await planEngines(process.env, root);
if (plan.problem !== undefined) {
  console.error(`start: ${plan.problem}`);
  process.exit(1);
}
const env = { ...process.env, ...plan.env };
// JWT_SECRET, when set, wins; otherwise this checkout's own (see local-jwt-secret.mjs).
if (env.JWT_SECRET === undefined || env.JWT_SECRET === '') {
  const { secret, path, created } = localJwtSecret(root);
  env.JWT_SECRET = secret;
  if (created) console.log(`start: made a token secret for this checkout in ${path} (not in git)`);
}

// A signal stops the step under way (and the apps, through concurrently); what was
// served is stopped after, whichever step it came in.
let step;
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    stopping = true;
    step?.kill(signal);
  });
}

/** Runs `pnpm ...args` to its end; true if it succeeded and no signal came meanwhile. */
function pnpm(...args) {
  return new Promise((done) => {
    step = spawn('pnpm', args, { cwd: root, env, stdio: 'inherit' });
    step.once('error', (error) => {
      console.error(`start: could not run pnpm ${args[0]} (${error.message})`);
      done(false);
    });
    step.once('close', (code) => {
      step = undefined;
      done(code === 0 && !stopping);
    });
  });
}

async function runApps() {
  const { default: concurrently } = await import('concurrently');
  const script = dev ? 'dev' : 'start';
  const { result } = concurrently(
    ['api', 'worker'].map((name) => ({
      name,
      command: `pnpm --filter @ingest/${name} ${script}`,
      env,
      prefixColor: name === 'api' ? 'cyan' : 'magenta',
    })),
    { killOthersOn: ['failure'], prefix: 'name', cwd: root },
  );
  return result.then(
    () => true,
    () => false,
  );
}

let ok = dev || (await pnpm('install', '--frozen-lockfile', '--prefer-offline'));
let engines = { stop: async () => {} };
if (ok && !stopping) {
  try {
    engines = await startEngines(plan);
  } catch (error) {
    console.error(`start: ${error.message}`);
    ok = false;
  }
}
ok = ok && !stopping && (await pnpm('db:migrate'));
ok = ok && (dev || (await pnpm('build')));
// Stopped by a signal, the apps' exit codes say how pnpm was interrupted, not a failure.
ok = ok && ((await runApps()) || stopping);
try {
  await engines.stop();
} catch (error) {
  console.error(`start: stopping what it served failed: ${error.message}`);
  ok = false;
}
process.exit(ok ? 0 : 1);
