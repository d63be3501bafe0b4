import type { Command } from 'commander';
import type { IngestClient } from '../../client.js';
import type { JsonBody, MessageFilter } from '../../types.js';
import { positiveInt } from '../context.js';
import { readJsonArgument, UsageError } from '../input.js';

type Create = JsonBody<'/api/webhooks/endpoints', 'post'>;
type Update = JsonBody<'/api/webhooks/endpoints/{id}', 'patch'>;
type Rate = NonNullable<Create['rate']>;

/** The options `endpoints create` and `endpoints update` share; `--no-…` only on update. */
export interface EndpointFlags {
  url?: string;
  events?: string;
  description?: string;
  /** false: `--no-filter`. */
  filter?: string | false;
  /** false: `--no-rate`. */
  rate?: number | false;
  inFlight?: number;
}

/** Adds what an endpoint is given, beside its url, to `command`. */
export function withEndpointOptions(command: Command): Command {
  return command
    .option('--events <types>', 'comma-separated message types (default: all)')
    .option('--description <text>')
    .option(
      '--filter <json>',
      'deliver only the messages this MessageFilter passes: JSON text, @file.json to read a ' +
        'file, or - for standard input (its fields: filterFields in GET /api/event-types)',
    )
    .option('--rate <n>', 'at most this many attempts a second', positiveInt('--rate'))
    .option('--in-flight <n>', 'at most this many attempts at once', positiveInt('--in-flight'));
}

/** The body's `url`, `events`, `description` and `filter`, as far as they were given. */
async function endpointFields({ url, events, description, filter }: EndpointFlags) {
  const read =
    typeof filter === 'string'
      ? ((await readJsonArgument(filter, '--filter')) as MessageFilter)
      : null;
  return {
    ...(url === undefined ? {} : { url }),
    // The service names unknown types in its 400; no need to know them here.
    ...(events === undefined
      ? {}
      : { events: events.split(',').map((type) => type.trim()) as never }),
    ...(description === undefined ? {} : { description }),
    // `--no-filter` sends null, which removes it.
    ...(filter === undefined ? {} : { filter: read }),
  };
}

export async function createBody(flags: EndpointFlags & { url: string }): Promise<Create> {
  const { rate, inFlight } = flags;
  const limits: Rate = {
    ...(typeof rate === 'number' ? { perSecond: rate } : {}),
    ...(inFlight === undefined ? {} : { inFlight }),
  };
  return {
    ...(await endpointFields(flags)),
    url: flags.url,
    ...(Object.keys(limits).length === 0 ? {} : { rate: limits }),
  };
}

/**
 * What `endpoints update` changes. The service replaces `rate` whole, so a limit not given
 * keeps its current value, read first; `--no-rate` drops both before any given is set.
 */
export async function updateBody(
  client: IngestClient,
  id: string,
  flags: EndpointFlags,
): Promise<Update> {
  const fields = await endpointFields(flags);
  const { rate, inFlight } = flags;
  if (rate === undefined && inFlight === undefined) return nonEmpty(fields);
  if (rate === false && inFlight === undefined) return { ...fields, rate: null };
  const kept = rate === false ? null : (await client.endpoints.get(id)).rate;
  const perSecond = typeof rate === 'number' ? rate : (kept?.perSecond ?? null);
  return {
    ...fields,
    rate: { perSecond, inFlight: inFlight ?? kept?.inFlight ?? null },
  };
}

function nonEmpty(body: Update): Update {
  if (Object.keys(body).length === 0)
    throw new UsageError(
      'give something to change: --url, --events, --description, --filter, --rate, --in-flight, --no-filter or --no-rate',
    );
  return body;
}
