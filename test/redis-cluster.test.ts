// The API and a worker process on a Redis Cluster of three masters with a replica each
// (REDIS_CLUSTER_NODES, the default six queue shards): events of many accounts go through,
// in order within each line; every master serves the queue; operators see one queue; and a
// master killed under load fails over to its replica with nothing lost or applied twice.
import {
  startPrivateRedisCluster,
  type ClusterNodeState,
  type PrivateRedisCluster,
} from '@ingest/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, registerAccount } from './support/accounts.js';
import { registerAdmin } from './support/admin.js';
import { accept, articleData, finalReceipt, uniqueSlug } from './support/content.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

// Enough accounts that each master's two shards hold about as many of them as the others'.
const ACCOUNTS = 36;

let cluster: PrivateRedisCluster;
let api: TestApi;
let worker: WorkerProcess;
let keys: string[];

beforeAll(async () => {
  cluster = await startPrivateRedisCluster({ masters: 3 });
  const env = { REDIS_CLUSTER_NODES: cluster.nodes.join(',') };
  api = await startTestApi(env);
  // Events whose enqueue failed while a master was down are queued again by the
  // reconciler: soon, here, so that the failover test need not wait for its default.
  worker = await startWorkerProcess(api.tag, { ...env, RECONCILE_AFTER_MS: '2000' });
  keys = await Promise.all(
    Array.from(
      { length: ACCOUNTS },
      async () => (await createKey(api, await registerAccount(api))).key,
    ),
  );
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await cluster?.destroy();
});

interface Line {
  key: string;
  slug: string;
  /** Its events, in the order they were accepted. */
  ids: string[];
}

/**
 * Each account creates `slugs` articles and updates each `updates` times: within a line
 * each event is accepted before the next is sent, and every line is sent at once.
 */
async function publishLines(slugs: number, updates: number): Promise<Line[]> {
  const lines: Line[] = keys.flatMap((key) =>
    Array.from({ length: slugs }, () => ({ key, slug: uniqueSlug('clustered'), ids: [] })),
  );
  await Promise.all(
    lines.map(async ({ key, slug, ids }) => {
      ids.push(await accept(api, key, 'article.create', articleData({ slug })));
      for (let update = 1; update <= updates; update += 1) {
        ids.push(await accept(api, key, 'article.update', { slug, title: `${slug} v${update}` }));
      }
    }),
  );
  return lines;
}

/** Every event succeeded, and each was applied once, in its line's order. */
async function expectEveryLineApplied(lines: Line[], updates: number, timeoutMs?: number) {
  for (const line of lines) {
    for (const id of line.ids) {
      expect((await finalReceipt(api, line.key, id, timeoutMs)).status).toBe('succeeded');
    }
    const article = await api.deps.db.prisma.article.findFirst({
      where: { slug: line.slug },
      select: { title: true, version: true },
    });
    // The last update's title; version 1 at creation and one more per update: an event
    // applied twice, or out of order, would show.
    expect(article, line.slug).toEqual({ title: `${line.slug} v${updates}`, version: 1 + updates });
  }
}

const mastersOf = (states: ClusterNodeState[]) => states.filter((node) => node.role === 'master');

describe('on a Redis Cluster', () => {
  it('applies every account’s events in order within each line, every master serving the queue', async () => {
    const before = mastersOf(await cluster.state());
    await expectEveryLineApplied(await publishLines(2, 4), 4);

    const after = mastersOf(await cluster.state());
    const served = after.map((node) => {
      const was = before.find((earlier) => earlier.port === node.port);
      return node.commandsProcessed - (was?.commandsProcessed ?? 0);
    });
    expect(served).toHaveLength(3);
    expect(Math.min(...served)).toBeGreaterThan(0);
    expect(
      Math.max(...served) / Math.min(...served),
      `commands per master: ${served.join(', ')}`,
    ).toBeLessThanOrEqual(3);
  });

  it('shows operators one queue: every shard counted, paused and resumed together', async () => {
    const admin = await registerAdmin(api);
    const state = await api.app.inject({
      method: 'GET',
      url: '/api/admin/queue',
      headers: bearer(admin.token),
    });
    expect(state.statusCode, state.body).toBe(200);
    expect(state.json()).toMatchObject({ paused: false, workers: 1 });
    expect(api.deps.queues.all).toHaveLength(6);

    const paused = await api.app.inject({
      method: 'POST',
      url: '/api/admin/queue/pause',
      headers: bearer(admin.token),
    });
    expect(paused.json()).toEqual({ paused: true });
    for (const queue of api.deps.queues.all) expect(await queue.isPaused()).toBe(true);
    const resumed = await api.app.inject({
      method: 'POST',
      url: '/api/admin/queue/resume',
      headers: bearer(admin.token),
    });
    expect(resumed.json()).toEqual({ paused: false });
  });

  it('loses nothing and applies nothing twice when a master dies under load and its replica takes over', async () => {
    const [victim] = mastersOf(await cluster.state());
    const publishing = publishLines(2, 6);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await cluster.kill(victim!.port);
    const lines = await publishing;
    await cluster.waitUntilHealthy();
    await expectEveryLineApplied(lines, 6, 60_000);
  }, 120_000);
});
