import type { Command } from 'commander';
import { clientFor, print, showCreatedKey, tell } from '../context.js';

export function addKeyCommands(program: Command): void {
  const keys = program.command('keys').description('API keys (needs a login)');
  keys
    .command('create')
    .requiredOption('--name <name>')
    .requiredOption('--scopes <scopes>', 'comma-separated, e.g. content:create,content:read')
    .option('--require-signature', 'refuse unsigned publishes with this key')
    .option('--save', 'keep the key and its signing secret in the config file, not printed')
    .action(
      async (
        options: { name: string; scopes: string; requireSignature?: boolean; save?: boolean },
        command: Command,
      ) => {
        const created = await (
          await clientFor(command)
        ).apiKeys.create({
          name: options.name,
          // The service names unknown scopes in its 400; no need to know them here.
          scopes: options.scopes.split(',').map((scope) => scope.trim()) as never,
          ...(options.requireSignature === true ? { requireSignature: true } : {}),
        });
        await showCreatedKey(created, options.save === true);
      },
    );
  keys.command('list').action(async (_options: unknown, command: Command) => {
    print((await (await clientFor(command)).apiKeys.list()).items);
  });
  keys.command('revoke <id>').action(async (id: string, _options: unknown, command: Command) => {
    await (await clientFor(command)).apiKeys.revoke(id);
    tell(`revoked ${id}`);
  });
  keys
    .command('rotate <id>')
    .description('replace a key by a new one with the same name and scopes, then revoke it')
    .option('--save', 'keep the new key in the config file instead of printing it')
    .action(async (id: string, options: { save?: boolean }, command: Command) => {
      const created = await (await clientFor(command)).apiKeys.rotate(id);
      await showCreatedKey(created, options.save === true);
    });
}
