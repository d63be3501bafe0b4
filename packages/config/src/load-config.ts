import type { z } from 'zod';

export type Env = Record<string, string | undefined>;

/** A bad environment: `message` lists every problem, one a line. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses `env` with `schema`, treating empty strings as unset so that `FOO=` falls back
 * to the default. Throws a ConfigError naming every bad variable at once.
 */
export function loadConfig<Schema extends z.ZodType>(schema: Schema, env: Env): z.output<Schema> {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const result = schema.safeParse(present);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map(
      (issue) => `${issue.path.join('.') || '(environment)'} ${issue.message}`,
    ),
  );
}

/** `scheme://user:***@host:port/path`: a connection URL fit for a log line or an error. */
export function redactUrlPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/**
 * Runs a composition root's config loader; a bad environment prints the one message
 * listing every problem, and exits 1 without a stack trace.
 */
export function loadConfigOrExit<Config>(load: () => Config): Config {
  try {
    return load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}
