import type { Command } from 'commander';
import { sleep } from '../../retry.js';
import { clientFor, print, tell } from '../context.js';
import { UsageError } from '../input.js';

const POLL_MS = 1_000;

/** `erase-account` for an account itself, `operator erase` for an operator. */
export function addErasureCommands(program: Command): void {
  program
    .command('erase-account')
    .description(
      'erase the logged-in account and everything of it, for good (needs a login and --yes)',
    )
    .option('--password <password>', 'or INGEST_PASSWORD')
    .option('--yes', 'yes, erase it: nothing of it can be brought back')
    .action(async (options: { password?: string; yes?: boolean }, command: Command) => {
      if (options.yes !== true) throw new UsageError('erasing cannot be undone: add --yes');
      const password = options.password ?? process.env.INGEST_PASSWORD;
      if (password === undefined) throw new UsageError('give --password or set INGEST_PASSWORD');
      const erasure = await (await clientFor(command)).eraseAccount({ password });
      tell(`erasure ${erasure.id} started; the account's keys and token no longer work`);
    });

  const operator = program
    .command('operator')
    .description("operators' commands (needs an operator login)");
  operator
    .command('erase <account>')
    .description('erase an account (by id or handle) and everything of it, for good')
    .option('--yes', 'yes, erase it: nothing of it can be brought back')
    .option('--wait', 'wait until the workers have finished, then print the record')
    .action(
      async (account: string, options: { yes?: boolean; wait?: boolean }, command: Command) => {
        if (options.yes !== true) throw new UsageError('erasing cannot be undone: add --yes');
        const client = await clientFor(command);
        let erasure = await client.operator.eraseAccount(account);
        tell(`erasure ${erasure.id} of ${account} started`);
        while (options.wait === true && erasure.finishedAt === null) {
          await sleep(POLL_MS);
          erasure = await client.operator.erasure(erasure.id);
        }
        print(erasure);
      },
    );
}
