import { defineConfig } from 'tsup';

// A publishable package: ESM with declarations, its dependencies left to the installer.
export default defineConfig({
  entry: ['src/index.ts', 'src/cli/main.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  target: 'node20',
  platform: 'node',
  clean: true,
  sourcemap: true,
});
