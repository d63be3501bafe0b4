import type { Command } from 'commander';
import { clientFor, positiveInt, print, tell } from '../context.js';

export function addEndpointCommands(program: Command): void {
  const endpoints = program.command('endpoints').description('outgoing webhooks (needs a login)');
  endpoints.command('list').action(async (_options: unknown, command: Command) => {
    print((await (await clientFor(command)).endpoints.list()).items);
  });
  endpoints
    .command('create')
    .requiredOption('--url <url>', 'where messages are POSTed')
    .option('--events <types>', 'comma-separated message types (default: all)')
    .option('--description <text>')
    .action(
      async (options: { url: string; events?: string; description?: string }, command: Command) => {
        const { events, description } = options;
        const created = await (
          await clientFor(command)
        ).endpoints.create({
          url: options.url,
          ...(events === undefined
            ? {}
            : { events: events.split(',').map((type) => type.trim()) as never }),
          ...(description === undefined ? {} : { description }),
        });
        print(created);
      },
    );
  endpoints
    .command('delete <id>')
    .action(async (id: string, _options: unknown, command: Command) => {
      await (await clientFor(command)).endpoints.delete(id);
      tell(`deleted ${id}`);
    });
  endpoints
    .command('test <id>')
    .description('send the endpoint a ping message')
    .action(async (id: string, _options: unknown, command: Command) => {
      print(await (await clientFor(command)).endpoints.test(id));
    });
  endpoints
    .command('deliveries <id>')
    .option('--limit <n>', 'at most this many, newest first', positiveInt('--limit'), 50)
    .action(async (id: string, options: { limit: number }, command: Command) => {
      const shown = [];
      for await (const delivery of (await clientFor(command)).deliveries(id)) {
        shown.push(delivery);
        if (shown.length >= options.limit) break;
      }
      print(shown);
    });
}
