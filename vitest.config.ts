import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // End-to-end files mostly wait on PostgreSQL, Redis and child processes, so two run at
    // once even on two cores (vitest's default is one fewer than the cores). Four at once
    // starved the child processes on this 2-core machine and tests timed out.
    maxWorkers: 2,
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
