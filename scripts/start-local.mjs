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
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { planEngines, startEngines } from './local-engines.mjs';
import { localJwtSecret } from './local-jwt-secret.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dev = process.argv.includes('--dev');
const APPS = [
  { name: 'api', entry: 'server' },
  { name: 'worker', entry: 'main' },
];

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

// A signal stops the step under way (or the apps); what was
// served is stopped after, whichever step it came in.
let step;
let apps = [];
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    stopping = true;
    step?.kill(signal);
    // SIGTERM for Ctrl-C too: each app stops cleanly on it, and exits 0.
    for (const app of apps) app.kill('SIGTERM');
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

/**
 * Runs the API and the worker, each a node process of its own with no shell or pnpm in
 * between: a signal reaches them as it would in production, and they stop cleanly with
 * exit code 0, where a shell or pnpm between would die of the signal and report a failure.
 * Their lines are prefixed with their names; when one fails, the other is stopped.
 */
function runApps() {
  const tsx = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const children = APPS.map(({ name, entry }) => {
    const args = dev
      ? [tsx, 'watch', `src/${entry}.ts`]
      : ['--enable-source-maps', `dist/${entry}.js`];
    const child = spawn(process.execPath, args, {
      cwd: join(root, 'apps', name),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // A group of its own: Ctrl-C reaches only this script, which stops each app once.
      // tsx watch, signalled twice (by the terminal and by us), would kill its app at once.
      detached: true,
    });
    for (const [from, to] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      createInterface({ input: from }).on('line', (line) => to.write(`[${name}] ${line}\n`));
    }
    return child;
  });
  apps = children;
  return Promise.all(
    children.map(
      (child) =>
        new Promise((done) => {
          child.once('error', (error) => {
            console.error(`start: could not run ${child.spawnargs.join(' ')} (${error.message})`);
            done(false);
          });
          child.once('close', (code) => {
            const ok = code === 0 || stopping;
            if (!ok) for (const other of children) if (other !== child) other.kill('SIGTERM');
            done(ok);
          });
        }),
    ),
  ).then((each) => each.every(Boolean));
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
ok = ok && (await runApps());
try {
  await engines.stop();
} catch (error) {
  console.error(`start: stopping what it served failed: ${error.message}`);
  ok = false;
}
if (stopping && ok) console.log('start: stopped');
process.exit(ok ? 0 : 1);
