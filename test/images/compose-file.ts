// docker-compose.yml as data: the smoke test runs the services it describes (the same
// commands, environment and replica counts), and a cheap test checks its wiring. Only
// what those two read is typed here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@ingest/test-harness';
import { parse } from 'yaml';

export interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  deploy?: { replicas?: number };
  healthcheck?: { test: string[] };
  ports?: string[];
  stop_grace_period?: string;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
}

export const COMPOSE_PATH = join(REPO_ROOT, 'docker-compose.yml');

/** The file parsed as Compose reads it: `<<` merge keys applied, nothing interpolated. */
export function readComposeFile(path = COMPOSE_PATH): ComposeFile {
  return parse(readFileSync(path, 'utf8'), { merge: true }) as ComposeFile;
}

/** The service named `name`; throws when the file has none. */
export function composeService(file: ComposeFile, name: string): ComposeService {
  const service = file.services[name];
  if (service === undefined) throw new Error(`docker-compose.yml has no service ${name}`);
  return service;
}

/**
 * `value` with `${NAME}`, `${NAME:-default}` and `${NAME:?message}` replaced from
 * `variables`, as Compose does from the shell; a required variable that is missing
 * throws its message.
 */
export function interpolate(value: string, variables: Record<string, string>): string {
  return value.replace(
    /\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g,
    (_match, name: string, kind?: string, rest?: string) => {
      const set = variables[name];
      if (set !== undefined && set !== '') return set;
      if (kind === '?') throw new Error(`${name}: ${rest ?? 'required'}`);
      return kind === '-' ? (rest ?? '') : '';
    },
  );
}
