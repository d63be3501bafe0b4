#!/usr/bin/env node
// `ingest`: the content ingestion service from a shell. Output is JSON on standard output
// (pipe it to jq); progress, summaries and errors go to standard error. Exit codes: 0 done,
// 1 a call or a line failed, 2 the command was mistyped, 130 interrupted.
import { Command } from 'commander';
import { IngestError } from '../errors.js';
import { addAccountCommands } from './commands/account.js';
import { addErasureCommands } from './commands/erasure.js';
import { addEndpointCommands } from './commands/endpoints.js';
import { addKeyCommands } from './commands/keys.js';
import { addPublishCommands } from './commands/publish.js';
import { tell } from './context.js';
import { UsageError } from './input.js';
import { configPath } from './settings.js';

const program = new Command('ingest')
  .description('Publish content events to the ingestion service, and manage keys and webhooks')
  .option('--service <url>', 'the service (INGEST_URL; default http://127.0.0.1:3000)')
  .option('--key <sk-…>', 'an API key, for publishing and receipts (INGEST_API_KEY)')
  .option('--token <jwt>', 'a login token, for keys and endpoints (INGEST_TOKEN)')
  .option(
    '--signing-secret <whsec_…>',
    "sign publishes with the key's signing secret (INGEST_SIGNING_SECRET)",
  )
  .showHelpAfterError()
  .addHelpText(
    'after',
    `\nSettings come from flags, then the environment, then ${configPath()} (written by login and --save).`,
  );
addAccountCommands(program);
addKeyCommands(program);
addErasureCommands(program);
addPublishCommands(program);
addEndpointCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof UsageError) {
    tell(`ingest: ${error.message}`);
    process.exitCode = 2;
  } else if (error instanceof IngestError) {
    const where = error.requestId === undefined ? '' : ` (request ${error.requestId})`;
    const status = error.status === 0 ? '' : ` ${error.status}`;
    tell(`ingest: ${error.code}${status}: ${error.message}${where}`);
    for (const field of error.errors) tell(`  ${field.path}: ${field.message}`);
    process.exitCode = 1;
  } else throw error;
}
