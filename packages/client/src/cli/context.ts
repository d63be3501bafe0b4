import type { Command } from 'commander';
import { IngestClient } from '../client.js';
import { UsageError } from './input.js';
import { configPath, resolveSettings, saveConfig } from './settings.js';

interface GlobalFlags {
  url?: string;
  key?: string;
  token?: string;
  signingSecret?: string;
}

/** The global flags a command was given, as settings, the unset ones left out. */
export function flagSettings(command: Command) {
  const flags = command.optsWithGlobals<GlobalFlags>();
  return {
    ...(flags.url === undefined ? {} : { url: flags.url }),
    ...(flags.key === undefined ? {} : { apiKey: flags.key }),
    ...(flags.token === undefined ? {} : { token: flags.token }),
    ...(flags.signingSecret === undefined ? {} : { signingSecret: flags.signingSecret }),
  };
}

/** A client with the settings of flags, the environment and the config file. */
export async function clientFor(command: Command): Promise<IngestClient> {
  const settings = await resolveSettings(flagSettings(command));
  return new IngestClient({
    baseUrl: settings.url,
    apiKey: settings.apiKey,
    token: settings.token,
    signingSecret: settings.signingSecret,
  });
}

/** An answer, as JSON on standard output. */
export const print = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};

/** A note for the person at the terminal, on standard error. */
export const tell = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

export const positiveInt = (name: string) => (value: string) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new UsageError(`${name} must be a positive whole number`);
  return number;
};

/**
 * A key just made: printed (the one time its secrets can be), or with `save` kept in the
 * config file and printed without them.
 */
export async function showCreatedKey(
  created: { key: string; signingSecret: string } & Record<string, unknown>,
  save: boolean,
): Promise<void> {
  if (!save) {
    print(created);
    tell('the key and its signing secret are shown this once: keep them now');
    return;
  }
  await saveConfig({ apiKey: created.key, signingSecret: created.signingSecret });
  const { key: _key, signingSecret: _secret, ...shown } = created;
  print(shown);
  tell(`key and signing secret saved to ${configPath()}`);
}
