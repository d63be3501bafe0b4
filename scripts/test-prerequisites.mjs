// The first step of `pnpm test`: the programs the tests start besides node, checked before
// anything runs, so that a machine without one stops at once with one line saying what to
// install, rather than failing halfway through. Where it can (Debian or Ubuntu, as root),
// it installs what is missing with apt-get, as CI does; TEST_PREREQUISITES_INSTALL=never
// turns that off. Plain node, no dependencies: it runs before `pnpm install`.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const onPath = (command) =>
  (process.env.PATH ?? '').split(delimiter).some((dir) => existsSync(join(dir, command)));

const postgresServer = () => {
  const root = '/usr/lib/postgresql';
  return (
    existsSync(root) &&
    readdirSync(root).some((version) => existsSync(join(root, version, 'bin', 'initdb')))
  );
};

const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** What the tests need, why, and the Debian packages that bring it. */
const prerequisites = [
  {
    name: `Chromium at ${chromiumPath}`,
    why: 'the dashboard and reference browser tests drive it',
    present: () => existsSync(chromiumPath),
    // A path of the caller's own is not ours to fill.
    packages: process.env.CHROMIUM_PATH ? null : ['chromium'],
    hint: 'apt-get install chromium, or set CHROMIUM_PATH to a Chromium or Chrome binary',
  },
  {
    name: 'pgbouncer',
    why: 'the pooler tests run the service through it',
    present: () => onPath('pgbouncer'),
    packages: ['pgbouncer'],
    hint: 'apt-get install pgbouncer',
  },
  {
    name: 'redis-server and redis-cli',
    why: 'the Redis Cluster tests start clusters of their own',
    present: () => onPath('redis-server') && onPath('redis-cli'),
    packages: ['redis-server', 'redis-tools'],
    hint: 'apt-get install redis-server redis-tools',
  },
  {
    name: 'Docker Compose (docker compose or docker-compose)',
    why: 'the compose file is checked with it',
    present: () =>
      spawnSync('docker', ['compose', 'version']).status === 0 || onPath('docker-compose'),
    packages: ['docker-compose'],
    hint: 'install Docker Compose, or apt-get install docker-compose',
  },
  {
    name: 'prometheus and promtool',
    why: 'the Prometheus tests unit-test deploy/prometheus and scrape a real API and worker',
    present: () => onPath('promtool') && onPath('prometheus'),
    packages: ['prometheus'],
    hint: "apt-get install prometheus (Debian's package brings both)",
  },
  {
    name: "PostgreSQL's server programs (initdb, pg_ctl)",
    why: 'the outage and replica tests start private clusters',
    present: postgresServer,
    packages: ['postgresql'],
    hint: 'apt-get install postgresql',
  },
];

const canInstall =
  process.env.TEST_PREREQUISITES_INSTALL !== 'never' &&
  process.getuid?.() === 0 &&
  onPath('apt-get');

const missing = prerequisites.filter((prerequisite) => !prerequisite.present());
const installable = missing.filter((prerequisite) => prerequisite.packages !== null);
if (canInstall && installable.length > 0) {
  const packages = installable.flatMap((prerequisite) => prerequisite.packages);
  console.log(
    `test: installing ${packages.join(' ')} with apt-get (${installable.map((p) => p.why).join('; ')})`,
  );
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const steps = [
    ['apt-get', ['update', '-qq']],
    ['apt-get', ['install', '-y', '-qq', ...packages]],
  ];
  for (const [command, args] of steps) {
    if (spawnSync(command, args, { env, stdio: ['ignore', 'ignore', 'inherit'] }).status !== 0) {
      console.error(
        `test: ${command} ${args.join(' ')} failed; install them and run pnpm test again`,
      );
      process.exit(1);
    }
  }
}

const stillMissing = prerequisites.filter((prerequisite) => !prerequisite.present());
if (stillMissing.length > 0) {
  const [first] = stillMissing;
  const more =
    stillMissing.length > 1
      ? ` (and ${stillMissing.length - 1} more: ${stillMissing
          .slice(1)
          .map((p) => p.hint)
          .join('; ')})`
      : '';
  console.error(`test: ${first.name} is missing (${first.why}): ${first.hint}${more}`);
  process.exit(1);
}
