// The container images and docker-compose.yml, checked without building anything (the
// build and a run of the stack: `pnpm images:smoke`). They hold each other up: the
// compose file's commands must be the images' CMDs, the images' HEALTHCHECKs must ask
// the ports the processes listen on, and the stop grace must outlast the worker's.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { loadApiConfig, loadWorkerConfig } from '@ingest/config';
import { freePort, REPO_ROOT, runCommand } from '@ingest/test-harness';
import { describe, expect, it } from 'vitest';
import {
  composeService,
  interpolate,
  readComposeFile,
  type ComposeService,
} from './images/compose-file.js';

interface Instruction {
  keyword: string;
  args: string;
}

/** A Dockerfile's instructions, continuation lines joined and comments dropped. */
function readDockerfile(path: string): Instruction[] {
  const joined = readFileSync(join(REPO_ROOT, path), 'utf8')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [keyword = '', ...rest] = line.trim().split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

/** The instructions of the last stage: what the image is made of at run time. */
function runtimeStage(instructions: Instruction[]): Instruction[] {
  const lastFrom = instructions.map((i) => i.keyword).lastIndexOf('FROM');
  return instructions.slice(lastFrom);
}

const only = (instructions: Instruction[], keyword: string): string[] =>
  instructions.filter((i) => i.keyword === keyword).map((i) => i.args);

const seconds = (duration: string | undefined): number => {
  const match = /^(\d+)s$/.exec(duration ?? '');
  if (match?.[1] === undefined) throw new Error(`not a duration in seconds: ${duration}`);
  return Number(match[1]);
};

const compose = readComposeFile();
const images = [
  { service: 'api', dockerfile: 'apps/api/Dockerfile', portVariable: 'PORT' },
  { service: 'worker', dockerfile: 'apps/worker/Dockerfile', portVariable: 'WORKER_HTTP_PORT' },
] as const;

describe('docker-compose.yml', () => {
  it('runs PostgreSQL and Redis with health checks, the migrations once, the API and two workers', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ['api', 'migrate', 'postgres', 'redis', 'worker'].sort(),
    );
    for (const name of ['postgres', 'redis']) {
      expect(composeService(compose, name).healthcheck?.test.length).toBeGreaterThan(1);
    }
    expect(composeService(compose, 'worker').deploy?.replicas).toBe(2);
  });

  it('starts the migrations once PostgreSQL is healthy, and the services once they succeeded', () => {
    expect(composeService(compose, 'migrate').depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
    });
    for (const name of ['api', 'worker']) {
      expect(composeService(compose, name).depends_on).toEqual({
        migrate: { condition: 'service_completed_successfully' },
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
      });
    }
  });

  it('runs the migrations from the API image, with the bundled migration entry', () => {
    const migrate = composeService(compose, 'migrate');
    expect(migrate.build).toEqual(composeService(compose, 'api').build);
    expect(migrate.image).toBe(composeService(compose, 'api').image);
    expect(migrate.command).toEqual(['node', 'dist/cli/migrate.js']);
    // dist/cli/migrate.js is built from src/cli/migrate.ts when tsup lists it.
    expect(existsSync(join(REPO_ROOT, 'apps/api/src/cli/migrate.ts'))).toBe(true);
    expect(readFileSync(join(REPO_ROOT, 'apps/api/tsup.config.ts'), 'utf8')).toContain(
      "'src/cli/migrate.ts'",
    );
  });

  it('takes JWT_SECRET from the environment and refuses to start without it', () => {
    const raw = composeService(compose, 'api').environment?.JWT_SECRET ?? '';
    expect(raw).toMatch(/^\$\{JWT_SECRET:\?.+\}$/);
    expect(() => interpolate(raw, {})).toThrow(/JWT_SECRET/);
    const secret = 'a'.repeat(64);
    const env = { JWT_SECRET: interpolate(raw, { JWT_SECRET: secret }) };
    expect(loadApiConfig(env).auth.jwtSecret).toBe(secret);
    for (const service of Object.values(compose.services)) {
      for (const value of Object.values(service.environment ?? {})) {
        if (value.includes('JWT_SECRET')) expect(value).toBe(raw);
      }
    }
  });

  it('gives each process more time to stop than it takes to finish its work', () => {
    const worker = composeService(compose, 'worker');
    expect(seconds(worker.stop_grace_period) * 1000).toBeGreaterThan(
      loadWorkerConfig({}).worker.shutdownGraceMs,
    );
    const api = composeService(compose, 'api');
    const env = { JWT_SECRET: 'a'.repeat(64) };
    expect(seconds(api.stop_grace_period)).toBeGreaterThan(
      loadApiConfig(env).limits.waitMaxSeconds,
    );
  });

  // Compose v2 (`docker compose`) or v1 (`docker-compose`, Debian's package): `pnpm test`
  // makes sure one is there (scripts/test-prerequisites.mjs).
  it('is valid for Compose, and only with JWT_SECRET set', () => {
    const composeCli = [['docker', 'compose'], ['docker-compose']].find(
      ([program = '', ...args]) => spawnSync(program, [...args, 'version']).status === 0,
    );
    expect(composeCli, 'docker compose or docker-compose').toBeDefined();
    const [program = '', ...args] = composeCli ?? [];
    const config = (env: NodeJS.ProcessEnv) =>
      spawnSync(program, [...args, 'config', '--quiet'], { cwd: REPO_ROOT, env }).status;
    expect(config({ ...process.env, JWT_SECRET: 'a'.repeat(64) })).toBe(0);
    expect(config({ ...process.env, JWT_SECRET: '' })).not.toBe(0);
  });
});

describe.each(images)('$dockerfile', ({ service, dockerfile, portVariable }) => {
  const instructions = readDockerfile(dockerfile);
  const runtime = runtimeStage(instructions);
  const composed: ComposeService = composeService(compose, service);

  it('builds FROM a public Node image by default, which BASE_IMAGE replaces', () => {
    expect(only(instructions, 'ARG')[0]).toMatch(/^BASE_IMAGE=node:\d+-bookworm-slim$/);
    expect(only(instructions, 'FROM')).toEqual(['${BASE_IMAGE} AS build', '${BASE_IMAGE}']);
    expect(composed.build).toEqual({ context: '.', dockerfile });
  });

  it('installs from the lockfile and keeps production dependencies alone', () => {
    const runs = only(instructions, 'RUN').join('\n');
    expect(runs).toContain('pnpm install --frozen-lockfile');
    expect(runs).toMatch(/--prod .*deploy/);
  });

  it('runs as a numeric user other than root', () => {
    const users = only(runtime, 'USER');
    expect(users).toHaveLength(1);
    const [uid, gid] = (users[0] ?? '').split(':').map(Number);
    expect(uid).toBeGreaterThan(0);
    expect(gid).toBeGreaterThan(0);
  });

  it('runs node itself (exec form), the command the compose file gives', () => {
    const [cmd] = only(runtime, 'CMD');
    const command = JSON.parse(cmd ?? 'null') as string[];
    expect(command[0]).toBe('node');
    expect(composed.command).toEqual(command);
  });

  it('checks readiness on the port the process listens on', () => {
    const [healthcheck] = only(runtime, 'HEALTHCHECK');
    const probe = JSON.parse(/CMD (\[.*\])$/.exec(healthcheck ?? '')?.[1] ?? 'null') as string[];
    expect(probe).toEqual([
      'node',
      '/app/container-healthcheck.mjs',
      portVariable,
      expect.any(String),
    ]);
    // The default the probe falls back to is the one the compose file sets and the image exposes.
    expect(composed.environment?.[portVariable]).toBe(probe[3]);
    expect(only(runtime, 'EXPOSE')).toEqual([probe[3]]);
  });
});

describe('the images’ HEALTHCHECK script', () => {
  const probe = async (port: number) =>
    (
      await runCommand(process.execPath, ['scripts/container-healthcheck.mjs', 'PROBE_PORT', '1'], {
        env: { PROBE_PORT: String(port) },
      })
    ).code;

  it('passes when /health/ready answers 200, and fails on 503 or when nothing listens', async () => {
    let status = 200;
    const server = createServer((request, response) => {
      response.statusCode = request.url === '/health/ready' ? status : 404;
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      expect(await probe(port)).toBe(0);
      status = 503;
      expect(await probe(port)).toBe(1);
    } finally {
      server.close();
    }
    expect(await probe(await freePort())).toBe(1);
  });
});
