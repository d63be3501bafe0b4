/** This process's environment with `overrides` on top: what a child process is given. */
export function childEnv(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  // Test tooling, not a service: its children inherit the runner's environment (PATH, the
  // TEST_* and BENCH_* settings) as a shell would pass it on. Services read theirs through
  // @ingest/config.
  return { ...process.env, ...overrides };
}
