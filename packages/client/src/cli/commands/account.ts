import type { Command } from 'commander';
import { clientFor, flagSettings, tell } from '../context.js';
import { UsageError } from '../input.js';
import { configPath, saveConfig } from '../settings.js';

export function addAccountCommands(program: Command): void {
  program
    .command('login')
    .description('log in and keep the token in the config file (it is not printed)')
    .requiredOption('--email <email>')
    .option('--password <password>', 'or INGEST_PASSWORD')
    .action(async (options: { email: string; password?: string }, command: Command) => {
      const password = options.password ?? process.env.INGEST_PASSWORD;
      if (password === undefined) throw new UsageError('give --password or set INGEST_PASSWORD');
      const { token, account } = await (
        await clientFor(command)
      ).login({
        email: options.email,
        password,
      });
      const { url } = flagSettings(command);
      await saveConfig({ token, ...(url === undefined ? {} : { url }) });
      tell(`logged in as ${account.handle}; token saved to ${configPath()}`);
    });
}
