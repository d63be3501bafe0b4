// Shared build settings of the apps. Each app is bundled with the workspace packages it
// uses (they are TypeScript sources), while npm packages stay external and are loaded
// from node_modules at run time.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { dirname, join } from 'node:path';
import type { Options } from 'tsup';

interface Metafile {
  outputs: Record<string, { imports: Array<{ path: string; external?: boolean }> }>;
}

const packageNameOf = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** Whether Node, starting from `dir`, finds `name` in a node_modules folder on the way up. */
function isResolvableFrom(dir: string, name: string): boolean {
  for (let current = dir; ; current = dirname(current)) {
    if (existsSync(join(current, 'node_modules', name, 'package.json'))) return true;
    if (dirname(current) === current) return false;
  }
}

/**
 * With pnpm, a dependency of a workspace package is not visible from the app unless the
 * app declares it too. The bundle would then fail only when the process starts; this
 * check fails the build instead, naming what to add.
 */
async function assertExternalsResolve(appDir: string): Promise<void> {
  const metafile = JSON.parse(
    await readFile(`${appDir}/dist/metafile-esm.json`, 'utf8'),
  ) as Metafile;
  const missing = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const { path, external } of output.imports) {
      if (external !== true || isBuiltin(path)) continue;
      if (!isResolvableFrom(appDir, packageNameOf(path))) missing.add(packageNameOf(path));
    }
  }
  if (missing.size > 0) {
    throw new Error(
      `${appDir}/package.json must list these dependencies: ${[...missing].join(', ')}`,
    );
  }
}

export function appBuildOptions(appDir: string, entries: string[]): Options {
  return {
    entry: entries,
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    clean: true,
    splitting: false,
    metafile: true,
    noExternal: [/^@ingest\//],
    // Every other bare import is an npm package: leave it to node_modules.
    external: [/^[^./]/],
    // tsup does not fail the build when onSuccess throws, so the exit code is set here.
    onSuccess: async () => {
      try {
        await assertExternalsResolve(appDir);
      } catch (error) {
        console.error(`build check failed: ${(error as Error).message}`);
        process.exitCode = 1;
      }
    },
  };
}
