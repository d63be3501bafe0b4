// Builds a compose service's image with buildah, as `docker compose build` would from its
// `build:` section, on the given base image. `--layers` caches each step, so a second run
// rebuilds only what changed.
import { buildah } from './commands.js';
import type { ComposeService } from './compose-file.js';

export async function buildImage(service: ComposeService, tag: string, baseImage: string) {
  if (service.build === undefined) throw new Error(`no build section for ${tag}`);
  await buildah(
    [
      ...['bud', '--isolation', 'chroot', '--layers'],
      // Docker's format keeps HEALTHCHECK (OCI's drops it).
      ...['--format', 'docker', '--build-arg', `BASE_IMAGE=${baseImage}`],
      ...['-f', service.build.dockerfile, '-t', tag, service.build.context],
    ],
    { timeoutMs: 1_800_000 },
  );
}

/** `<image> <size>`, as `buildah images` reports it. */
export async function imageSize(image: string): Promise<string> {
  const { stdout } = await buildah(['images', '--format', '{{.Size}}', image], { check: false });
  return `${image}: ${stdout.trim() || 'absent'}`;
}
