// Containers of the smoke test: `buildah from` an image, then `buildah run` in it, as a
// container runtime would run the image's process. With chroot isolation a container
// shares the host's network and process namespace, so its ports are on loopback and its
// node is a process of this machine.
import { readFileSync, readdirSync } from 'node:fs';
import { buildah, run } from './commands.js';

export interface ImageConfig {
  user: string;
  workingDir: string;
  cmd: string[];
  healthcheck: string[];
}

/** The image's run-time settings, as Docker reads them (the build used `--format docker`). */
export async function imageConfig(image: string): Promise<ImageConfig> {
  const { stdout } = await buildah(['inspect', '--type', 'image', image]);
  const config = (
    JSON.parse(stdout) as {
      Docker: {
        config: {
          User?: string;
          WorkingDir?: string;
          Cmd?: string[];
          Healthcheck?: { Test?: string[] };
        };
      };
    }
  ).Docker.config;
  return {
    user: config.User ?? '',
    workingDir: config.WorkingDir ?? '',
    cmd: config.Cmd ?? [],
    // ['CMD', program, ...args]: the program and its arguments, run without a shell.
    healthcheck: (config.Healthcheck?.Test ?? []).slice(1),
  };
}

/** A working container of `image`; `remove` deletes it (what `docker rm` would). */
export async function createContainer(image: string, name: string) {
  await buildah(['rm', name], { check: false });
  await buildah(['from', '--name', name, image]);
  return { name, remove: () => buildah(['rm', name], { check: false }) };
}

/** The arguments of `buildah run` that run `command` in `container` with `env` added. */
export const runArgs = (container: string, env: Record<string, string>, command: string[]) => [
  'run',
  '--isolation',
  'chroot',
  ...Object.entries(env).flatMap(([name, value]) => ['--env', `${name}=${value}`]),
  container,
  '--',
  ...command,
];

/** Runs `command` in `container` to completion. */
export const runInContainer = (
  container: string,
  env: Record<string, string>,
  command: string[],
  options: { check?: boolean } = {},
) => run('buildah', runArgs(container, env, command), options);

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
        .split(' ')
        .filter((child) => child !== '')
        .map(Number),
    );
  } catch {
    return []; // it exited meanwhile
  }
}

/**
 * The node process that `buildah run` (process `pid`) started. buildah does not pass
 * signals on (a SIGTERM to it kills its command), so a signal meant for the container's
 * process, as `docker stop` sends it, goes to this one directly.
 */
export function containerNodePid(pid: number): number | undefined {
  for (const child of childrenOf(pid)) {
    const comm = readFileSync(`/proc/${child}/comm`, 'utf8').trim();
    if (comm === 'node') return child;
    const deeper = containerNodePid(child);
    if (deeper !== undefined) return deeper;
  }
  return undefined;
}
