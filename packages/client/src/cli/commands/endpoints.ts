import type { Command } from 'commander';
import { clientFor, positiveInt, print, tell } from '../context.js';
import {
  createBody,
  updateBody,
  withEndpointOptions,
  type EndpointFlags,
} from './endpoint-options.js';

export function addEndpointCommands(program: Command): void {
  const endpoints = program
    .command('endpoints')
    .description(
      'outgoing webhooks (needs a login): each shown with its state, pausedReason, filter and rate',
    );
  endpoints.command('list').action(async (_options: unknown, command: Command) => {
    print((await (await clientFor(command)).endpoints.list()).items);
  });
  endpoints.command('show <id>').action(async (id: string, _options: unknown, command: Command) => {
    print(await (await clientFor(command)).endpoints.get(id));
  });
  withEndpointOptions(
    endpoints.command('create').requiredOption('--url <url>', 'where messages are POSTed'),
  ).action(async (options: EndpointFlags & { url: string }, command: Command) => {
    print(await (await clientFor(command)).endpoints.create(await createBody(options)));
  });
  withEndpointOptions(
    endpoints
      .command('update <id>')
      .description('change what is given; the rest stays')
      .option('--url <url>', 'where messages are POSTed'),
  )
    .option('--no-filter', 'remove the filter: every message of its types')
    .option('--no-rate', 'remove both limits; with --rate or --in-flight, only that one is set')
    .action(async (id: string, options: EndpointFlags, command: Command) => {
      const client = await clientFor(command);
      print(await client.endpoints.update(id, await updateBody(client, id, options)));
    });
  endpoints
    .command('pause <id>')
    .description('hold its deliveries, none failed or lost, until it is resumed')
    .action(async (id: string, _options: unknown, command: Command) => {
      print(await (await clientFor(command)).endpoints.pause(id));
      tell(`paused ${id}: deliveries wait for \`ingest endpoints resume ${id}\``);
    });
  endpoints
    .command('resume <id>')
    .description('deliver what waited, in order per slug (after a pause or the breaker)')
    .action(async (id: string, _options: unknown, command: Command) => {
      print(await (await clientFor(command)).endpoints.resume(id));
    });
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
