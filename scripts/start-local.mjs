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

// A signal stops the step under way (or the apps); what was served is stopped after,
// whichever step it came in. Each child is signalled once: Ctrl-C at a terminal reaches
// this script twice (from the terminal, and again from pnpm, which forwards it), and an
// app signalled again while it drains would be killed mid-drain. A signal that comes
// AGAIN_AFTER_MS or more after the first is someone asking a second time: the apps are
// killed, after a line saying so.
const AGAIN_AFTER_MS = 2_000;
let step;
let apps = [];
let stopping = false;
let firstSignalAt = 0;
let killed = false;
const signalled = new WeakSet();

/** A child that was started and has not exited. */
const running = (child) =>
  child !== undefined && child.exitCode === null && child.signalCode === null;

/** Sends `signal` to `child` unless it was sent one already or has exited. */
function signalOnce(child, signal) {
  if (!running(child) || signalled.has(child)) return;
  signalled.add(child);
  child.kill(signal);
}

/**
 * SIGKILL to `child`, or to the process group it leads (`group`): an app runs detached,
 * and under `--dev` its group holds tsx watch and the app that tsx runs.
 */
function kill(child, group) {
  if (!running(child)) return;
  try {
    process.kill(group ? -child.pid : child.pid, 'SIGKILL');
  } catch {
    // gone meanwhile
  }
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (!stopping) {
      stopping = true;
      firstSignalAt = Date.now();
      signalOnce(step, signal);
      // SIGTERM for Ctrl-C too: each app stops cleanly on it, and exits 0.
      for (const app of apps) signalOnce(app, 'SIGTERM');
      return;
    }
    if (killed || Date.now() - firstSignalAt < AGAIN_AFTER_MS) return;
    killed = true;
    console.error('start: asked again: killing the apps without waiting for them to drain');
    kill(step, false);
    for (const app of apps) kill(app, true);
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
 * Their lines are prefixed with their names; when one fails, the other is stopped. An app
 * that does not exit 0, stopping or not, fails the start.
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
      // tsx watch, signalled twice, kills its app at once; the app itself, signalled twice,
      // would only ignore the second.
      detached: true,
    });
    for (const [from, to] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      createInterface({ input: from }).on('line', (line) => to.write(`[${name}] ${line}\n`));
    }
    return { name, child };
  });
  apps = children.map(({ child }) => child);
  // A signal that came while they were spawned found no app to stop.
  if (stopping) for (const app of apps) signalOnce(app, 'SIGTERM');
  return Promise.all(
    children.map(
      ({ name, child }) =>
        new Promise((done) => {
          child.once('error', (error) => {
            console.error(`start: could not run ${child.spawnargs.join(' ')} (${error.message})`);
            done(false);
          });
          child.once('close', (code, signal) => {
            const ok = code === 0;
            if (!ok && stopping && !killed) {
              const how = signal === null ? `exited with code ${code}` : `was killed by ${signal}`;
              console.error(`start: the ${name} ${how} while stopping`);
            }
            if (!ok) for (const other of apps) if (other !== child) signalOnce(other, 'SIGTERM');
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
