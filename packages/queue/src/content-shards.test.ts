import { randomUUID } from 'node:crypto';
import slotOf from 'cluster-key-slot';
import { describe, expect, it } from 'vitest';
import { contentQueueNames, shardIndexOf } from './content-shards.js';

const cluster = { nodes: [{ host: '127.0.0.1', port: 7000 }], tls: false };
/** The master of a slot when `masters` masters split the slots evenly, as redis-cli does. */
const masterOf = (slot: number, masters: number) => Math.floor((slot * masters) / 16_384);

describe('the content queue shards', () => {
  it('are the plain queue name on a single Redis with one shard', () => {
    expect(contentQueueNames({ queueShards: 1, cluster: null })).toEqual(['content-events']);
  });

  it('are hash-tagged on a cluster, and on a single Redis with several shards', () => {
    for (const names of [
      contentQueueNames({ queueShards: 1, cluster }),
      contentQueueNames({ queueShards: 4, cluster: null }),
    ]) {
      for (const name of names) expect(name).toMatch(/^content-events-\{s\d+\}$/);
    }
  });

  it('spread evenly over the masters of a cluster, with every key of a shard in one slot', () => {
    const names = contentQueueNames({ queueShards: 6, cluster });
    expect(new Set(names).size).toBe(6);
    for (const masters of [1, 2, 3, 6]) {
      const perMaster = new Map<number, number>();
      for (const name of names) {
        const slot = slotOf(`ingest:bull:${name}:wait`);
        expect(slotOf(`ingest:bull:${name}:fair:slots:${randomUUID()}`)).toBe(slot);
        const master = masterOf(slot, masters);
        perMaster.set(master, (perMaster.get(master) ?? 0) + 1);
      }
      expect([...perMaster.values()]).toEqual(Array(masters).fill(6 / masters));
    }
  });

  it('give each account one shard, the same in every process, and use them all', () => {
    const accounts = Array.from({ length: 600 }, () => randomUUID());
    const counts = Array(6).fill(0) as number[];
    for (const account of accounts) {
      const shard = shardIndexOf(account, 6);
      expect(shardIndexOf(account, 6)).toBe(shard);
      counts[shard]! += 1;
    }
    expect(Math.min(...counts)).toBeGreaterThan(50); // 100 each on average
  });
});
