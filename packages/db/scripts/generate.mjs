// Generates the Prisma client (run after every install).
//
// The Prisma CLI checks at start-up for its native schema engine and tries to download
// it when missing; where there is no internet access (CI here) that download fails even
// though `generate` never runs the engine. So when the engine is absent, point the CLI at
// a stand-in file, which it checks exists and never executes. Where the real engine is
// present, the CLI is left alone.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const env = { ...process.env };
const enginesDir = dirname(
  require.resolve('@prisma/engines/package.json', {
    paths: [dirname(require.resolve('prisma/package.json'))],
  }),
);
const hasEngine = readdirSync(enginesDir).some((file) => file.startsWith('schema-engine'));
if (!hasEngine && env.PRISMA_SCHEMA_ENGINE_BINARY === undefined) {
  env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
}
const prismaCli = join(dirname(require.resolve('prisma/package.json')), 'build', 'index.js');
if (!existsSync(prismaCli)) throw new Error(`Prisma CLI not found at ${prismaCli}`);
const result = spawnSync(process.execPath, [prismaCli, 'generate'], {
  cwd: new URL('../../../', import.meta.url),
  env,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
