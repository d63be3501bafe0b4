import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** What the CLI knows of where the service is and who it is calling as. */
export interface Settings {
  url?: string;
  apiKey?: string;
  token?: string;
  signingSecret?: string;
}

/** ~/.config/ingest/config.json, or under $XDG_CONFIG_HOME when it is set. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME ?? join(homedir(), '.config');
  return join(base, 'ingest', 'config.json');
}

export async function readConfig(path = configPath()): Promise<Settings> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '{}';
    throw error;
  });
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null) return {};
  const record = parsed as Record<string, unknown>;
  const settings: Settings = {};
  for (const name of ['url', 'apiKey', 'token', 'signingSecret'] as const) {
    const value = record[name];
    if (typeof value === 'string') settings[name] = value;
  }
  return settings;
}

/** Merges `changes` into the config file, readable by its owner alone (it holds secrets). */
export async function saveConfig(changes: Settings, path = configPath()): Promise<void> {
  const merged = { ...(await readConfig(path)), ...changes };
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, `${JSON.stringify(merged, null, 2)}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
}

/**
 * Each setting from the first place that has it: a flag, then the environment
 * (INGEST_URL, INGEST_API_KEY, INGEST_TOKEN, INGEST_SIGNING_SECRET), then the config
 * file; the service's address defaults to a local one.
 */
export async function resolveSettings(
  flags: Settings,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Settings & { url: string }> {
  const file = await readConfig(configPath(env));
  const pick = (
    flag: string | undefined,
    fromEnv: string | undefined,
    fromFile: string | undefined,
  ) => flag ?? (fromEnv === '' ? undefined : fromEnv) ?? fromFile;
  const apiKey = pick(flags.apiKey, env.INGEST_API_KEY, file.apiKey);
  const token = pick(flags.token, env.INGEST_TOKEN, file.token);
  const signingSecret = pick(flags.signingSecret, env.INGEST_SIGNING_SECRET, file.signingSecret);
  return {
    url: pick(flags.url, env.INGEST_URL, file.url) ?? 'http://127.0.0.1:3000',
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(token === undefined ? {} : { token }),
    ...(signingSecret === undefined ? {} : { signingSecret }),
  };
}
