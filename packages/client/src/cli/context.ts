import type { Command } from 'commander';
import { IngestClient } from '../client.js';
import { UsageError } from './input.js';
import { configPath, resolveSettings, saveConfig } from './settings.js';

interface GlobalFlags {
  /** The service's address: not `--url`, which `endpoints create` takes for the endpoint's. */
  service?: string;
  key?: string;
  token?: string;
  signingSecret?: string;
}

/** The global flags a command was given, as settings, the unset ones left out. */
export function flagSettings(command: Command) {
  const flags = command.optsWithGlobals<GlobalFlags>();
  return {
    ...(flags.service === undefined ? {} : { url: flags.service }),
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

const atLeast = (least: number, what: string) => (name: string) => (value: string) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < least) throw new UsageError(`${name} must be ${what}`);
  return number;
};
export const positiveInt = atLeast(1, 'a positive whole number');
export const wholeNumber = atLeast(0, 'a whole number, 0 or more');

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
