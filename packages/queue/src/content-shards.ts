// The apps compile this file from source: the package's missing types must travel with it.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./cluster-key-slot.d.ts" />
import { createHash } from 'node:crypto';
import type { RedisSettings } from '@ingest/config';
import type { QueueOptions } from 'bullmq';
import slotOf from 'cluster-key-slot';
import { createContentQueue, type ContentQueue } from './content-queue.js';
import { CONTENT_EVENTS_QUEUE } from './job-registry.js';
import type { RedisClient } from './redis-connection.js';

/** Hash slots in a Redis Cluster: a key's slot is CRC16 of its hash tag, modulo this. */
const CLUSTER_SLOTS = 16_384;

/** How the content queue is laid out in Redis: what every process must agree on. */
export type QueueLayout = Pick<RedisSettings, 'keyPrefix' | 'queueShards' | 'cluster'>;

/**
 * Keys are hash-tagged on a cluster (every BullMQ script of a queue touches several keys,
 * which must share a slot), and whenever there is more than one shard; a single Redis
 * with one shard needs no tag.
 */
export const isTagged = (layout: Pick<QueueLayout, 'queueShards' | 'cluster'>): boolean =>
  layout.cluster !== null || layout.queueShards > 1;

/**
 * A hash tag whose slot is `slot`: the first `s<n>` that lands there. Found by search
 * (about 16,000 tries on average), the same in every process, and never stored.
 */
function tagForSlot(slot: number): string {
  for (let n = 0; ; n += 1) if (slotOf(`s${n}`) === slot) return `s${n}`;
}

/**
 * The content queue's names, one per shard. Shard i's tag sits in the middle of the i-th
 * of `count` equal stretches of the slots: a cluster's masters hold contiguous ranges of
 * slots, so the shards spread evenly over them (2 a master for 6 shards on 3 masters).
 */
export function contentQueueNames(layout: Pick<QueueLayout, 'queueShards' | 'cluster'>): string[] {
  if (!isTagged(layout)) return [CONTENT_EVENTS_QUEUE];
  const count = layout.queueShards;
  return Array.from({ length: count }, (_, index) => {
    const slot = Math.floor(((index + 0.5) * CLUSTER_SLOTS) / count);
    return `${CONTENT_EVENTS_QUEUE}-{${tagForSlot(slot)}}`;
  });
}

/**
 * Which shard an account's events go to: fixed by its id, so that an account's events,
 * its place in the fair order and its in-flight cap all live in one queue (one slot).
 */
export function shardIndexOf(accountId: string, count: number): number {
  if (count === 1) return 0;
  return createHash('sha256').update(accountId).digest().readUInt32BE(0) % count;
}

/** The content queue, as its shards. */
export interface ContentShards {
  /** Every shard, in order: a consumer takes from each, an operator's view sums them. */
  readonly all: readonly ContentQueue[];
  /** The shard an account's events are queued in. */
  of(accountId: string): ContentQueue;
  /** Pauses (or resumes) every shard: operators pause the queue, not a shard. */
  pause(paused: boolean): Promise<void>;
  /** Whether every shard is paused. */
  isPaused(): Promise<boolean>;
  close(): Promise<void>;
}

export function createContentShards(
  connection: RedisClient,
  layout: QueueLayout,
  options: Partial<QueueOptions> = {},
): ContentShards {
  const all = contentQueueNames(layout).map((name) =>
    createContentQueue(connection, layout.keyPrefix, options, name),
  );
  return {
    all,
    of: (accountId) => all[shardIndexOf(accountId, all.length)]!,
    pause: async (paused) => {
      await Promise.all(all.map((queue) => (paused ? queue.pause() : queue.resume())));
    },
    isPaused: async () => (await Promise.all(all.map((queue) => queue.isPaused()))).every(Boolean),
    close: async () => {
      await Promise.all(all.map((queue) => queue.close()));
    },
  };
}

/** Groups items by the shard of their account, keeping their order within each. */
export function byShard<Item>(
  shards: ContentShards,
  items: readonly Item[],
  accountOf: (item: Item) => string,
): Map<ContentQueue, Item[]> {
  const groups = new Map<ContentQueue, Item[]>();
  for (const item of items) {
    const queue = shards.of(accountOf(item));
    const group = groups.get(queue);
    if (group === undefined) groups.set(queue, [item]);
    else group.push(item);
  }
  return groups;
}
