// Runs compose services in buildah containers, one container per process as Compose
// would: the service's command (else the image's CMD) and its environment, with the
// hosts of the compose network (postgres:5432, redis:6379) replaced by the private servers
// on loopback, and each process's port a free one, since all share this machine's network.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, startProcess, type RunningProcess } from '@ingest/test-harness';
import { interpolate, type ComposeService } from './compose-file.js';
import {
  containerNodePid,
  createContainer,
  imageConfig,
  runArgs,
  runInContainer,
} from './containers.js';

interface Started {
  proc: RunningProcess;
  container: string;
  image: string;
  env: Record<string, string>;
  portVariable: string;
  port: number;
}

const STOP_TIMEOUT_MS = 40_000;

export class ServiceRunner {
  private readonly started: Started[] = [];
  private readonly containers: Array<{ name: string; remove: () => Promise<unknown> }> = [];
  private hosts: Record<string, string> = {};
  private variables: Record<string, string> = {};
  private readonly prefix = `ingest-smoke-${process.pid}`;

  constructor(private readonly log: (line: string) => void) {}

  useServers(ports: { postgres: number; redis: number }): void {
    this.hosts = {
      'postgres:5432': `127.0.0.1:${ports.postgres}`,
      'redis:6379': `127.0.0.1:${ports.redis}`,
    };
  }

  /** What the shell gives Compose to interpolate (`${JWT_SECRET:?…}`). */
  useVariables(variables: Record<string, string>): void {
    this.variables = variables;
  }

  private environmentOf(service: ComposeService): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [name, raw] of Object.entries(service.environment ?? {})) {
      let value = interpolate(String(raw), this.variables);
      for (const [host, local] of Object.entries(this.hosts)) value = value.replace(host, local);
      env[name] = value;
    }
    return env;
  }

  private async commandOf(service: ComposeService, image: string): Promise<string[]> {
    return service.command ?? (await imageConfig(image)).cmd;
  }

  private async container(name: string, image: string): Promise<string> {
    const container = await createContainer(image, `${this.prefix}-${name}`);
    this.containers.push(container);
    return container.name;
  }

  /** Runs a one-shot service to completion; returns its output, throws if it fails. */
  async runOnce(name: string, service: ComposeService, image: string): Promise<string> {
    const container = await this.container(name, image);
    const command = await this.commandOf(service, image);
    const { stdout, stderr } = await runInContainer(
      container,
      this.environmentOf(service),
      command,
    );
    return `${stdout}${stderr}`;
  }

  /** Starts a long-running service on a free port; resolves once /health/ready answers 200. */
  async start(
    name: string,
    service: ComposeService,
    image: string,
    portVariable: string,
  ): Promise<RunningProcess> {
    const container = await this.container(name, image);
    const port = await freePort();
    const env = { ...this.environmentOf(service), [portVariable]: String(port) };
    const proc = await startProcess({
      name,
      command: 'buildah',
      nodeArgs: runArgs(container, env, await this.commandOf(service, image)),
      ready: { url: `http://127.0.0.1:${port}/health/ready` },
      readyTimeoutMs: 60_000,
    });
    this.started.push({ proc, container, image, env, portVariable, port });
    this.log(`${name} ready on :${port}`);
    return proc;
  }

  urlOf(proc: RunningProcess): string {
    const started = this.started.find((entry) => entry.proc === proc);
    if (started === undefined) throw new Error(`${proc.name} was not started here`);
    return `http://127.0.0.1:${started.port}`;
  }

  /**
   * Every process answers /health/live and /health/ready, and its image's HEALTHCHECK,
   * run in its container, passes; pointed at a port where nothing listens, it fails.
   */
  async checkHealth(): Promise<void> {
    for (const { proc, container, image, env, portVariable, port } of this.started) {
      for (const path of ['/health/live', '/health/ready']) {
        const response = await fetch(`http://127.0.0.1:${port}${path}`);
        if (response.status !== 200) throw new Error(`${proc.name} ${path}: ${response.status}`);
      }
      const { healthcheck } = await imageConfig(image);
      if (healthcheck.length === 0) throw new Error(`${image} has no HEALTHCHECK`);
      const passed = await runInContainer(container, env, healthcheck, { check: false });
      if (passed.code !== 0) throw new Error(`${proc.name}: HEALTHCHECK exited ${passed.code}`);
      const nowhere = { ...env, [portVariable]: String(await freePort()) };
      const failed = await runInContainer(container, nowhere, healthcheck, { check: false });
      if (failed.code === 0)
        throw new Error(`${proc.name}: HEALTHCHECK passes with nothing to ask`);
    }
  }

  /** The node process in each container runs as a user other than root. */
  async checkNonRoot(): Promise<void> {
    for (const { proc } of this.started) {
      const pid = containerNodePid(proc.pid);
      if (pid === undefined) throw new Error(`${proc.name}: no node process in its container`);
      const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      if (uid === undefined || uid === '0') throw new Error(`${proc.name} runs as uid ${uid}`);
      this.log(`${proc.name}: node runs as uid ${uid}`);
    }
  }

  /**
   * SIGTERM to each container's node, as `docker stop` sends it: each must log that it
   * shut down cleanly and exit 0 within the compose file's grace period.
   */
  async stopAll(): Promise<void> {
    for (const { proc } of this.started) {
      const pid = containerNodePid(proc.pid);
      if (pid === undefined) throw new Error(`${proc.name}: no node process in its container`);
      const closed = once(proc.child, 'close');
      const startedAt = Date.now();
      process.kill(pid, 'SIGTERM');
      const exited = await Promise.race([closed.then(() => true), sleep(STOP_TIMEOUT_MS, false)]);
      if (!exited) throw new Error(`${proc.name} still runs ${STOP_TIMEOUT_MS} ms after SIGTERM`);
      const code = proc.child.exitCode;
      if (code !== 0) throw new Error(`${proc.name} exited ${code} after SIGTERM`);
      if (!proc.lines.some((line) => line.includes('shut down cleanly'))) {
        throw new Error(`${proc.name} exited 0 without logging a clean shutdown`);
      }
      this.log(`${proc.name}: exited 0 ${Date.now() - startedAt} ms after SIGTERM`);
    }
  }

  logs(): Array<{ name: string; lines: string[] }> {
    return this.started.map(({ proc }) => ({ name: proc.name, lines: proc.lines }));
  }

  /** Kills whatever still runs (its node first: buildah would leave it) and removes every container. */
  async cleanUp(): Promise<void> {
    for (const { proc } of this.started) {
      if (proc.hasExited()) continue;
      const pid = containerNodePid(proc.pid);
      if (pid !== undefined) process.kill(pid, 'SIGKILL');
      await proc.stop('SIGKILL', 5_000);
    }
    for (const container of this.containers) await container.remove();
  }
}
