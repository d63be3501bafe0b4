import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts'],
          // Migrates the test database once before any file runs.
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // Files run in parallel; each isolates its data (own accounts, own Redis prefix).
          pool: 'forks',
        },
      },
    ],
  },
});
