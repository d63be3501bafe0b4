import { defineConfig } from 'tsup';
import { appBuildOptions } from '../../scripts/tsup-app.js';

export default defineConfig(
  appBuildOptions(import.meta.dirname, [
    'src/server.ts',
    'src/cli/grant-admin.ts',
    'src/cli/migrate.ts',
  ]),
);
