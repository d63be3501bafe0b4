import type { Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';

export interface QueueScript {
  name: string;
  numberOfKeys: number;
  lua: string;
}

const defined = new WeakMap<object, Set<string>>();

/**
 * Runs one of our Lua scripts on the queue's own connection (defined on it once, then
 * called by EVALSHA), so that its keys sit beside the queue's and it sees them atomically.
 * BullMQ hands back the connection it was given, wrapped: the command lands on it.
 */
export async function runScript<Result>(
  queue: Queue,
  script: QueueScript,
  args: Array<string | number>,
): Promise<Result> {
  const client = (await queue.getBackend().client) as unknown as (Redis | Cluster) &
    Record<string, (...args: Array<string | number>) => Promise<Result>>;
  let names = defined.get(client);
  if (names === undefined) defined.set(client, (names = new Set()));
  if (!names.has(script.name)) {
    client.defineCommand(script.name, { numberOfKeys: script.numberOfKeys, lua: script.lua });
    names.add(script.name);
  }
  return client[script.name]!(...args);
}
