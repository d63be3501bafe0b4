// `pnpm topology:up` and `pnpm topology:down`, as an operator runs them: the topology
// comes up (Redis Cluster, PgBouncer, a read replica, two APIs, three workers), an
// account made on one API publishes through the other and its event is applied, and
// `down` leaves nothing listening.
import { createConnection } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createPublisher,
  fetchClient,
  newAccountFields,
  runCommand,
  type RunOptions,
} from '@ingest/test-harness';
import { afterAll, describe, expect, it } from 'vitest';
import { articleData, uniqueSlug } from './support/content.js';
import type { TopologyState } from './faults/topology.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ingest-topology-'));
const options: RunOptions = { env: { TOPOLOGY_DIR: dir }, timeoutMs: 200_000 };
const pnpm = (script: string) => runCommand('pnpm', ['--silent', script], options);

afterAll(async () => {
  await pnpm('topology:down');
  rmSync(dir, { recursive: true, force: true });
});

/** Whether something accepts connections at `host:port` now. */
const listening = (address: string) =>
  new Promise<boolean>((resolve) => {
    const url = new URL(address.includes('://') ? address : `tcp://${address}`);
    const socket = createConnection({ host: url.hostname, port: Number(url.port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('pnpm topology:up and topology:down', () => {
  it('start every engine and both apps, serve an event end to end, and stop it all', async () => {
    const started = await pnpm('topology:up');
    expect(started.code, started.stderr + started.stdout).toBe(0);
    const state = JSON.parse(readFileSync(path.join(dir, 'state.json'), 'utf8')) as TopologyState;
    expect(state.apis).toHaveLength(2);
    expect(state.redisClusterNodes).toHaveLength(6);
    expect(state.workers).toBe(3);

    const [first, second] = state.apis.map((url) => fetchClient(url));
    const publisher = await createPublisher(second!, newAccountFields('topology.test'), 1);
    const slug = uniqueSlug('topology');
    const sent = await first!({
      method: 'POST',
      path: '/api/webhooks/content',
      headers: { 'x-api-key': publisher.apiKeys[0]!, prefer: 'wait=20' },
      body: { event: 'article.create', data: articleData({ slug }) },
    });
    expect(sent.status, sent.text).toBe(200);
    expect(JSON.parse(sent.text)).toMatchObject({ status: 'succeeded', result: { slug } });

    const stopped = await pnpm('topology:down');
    expect(stopped.code, stopped.stderr + stopped.stdout).toBe(0);
    const addresses = [
      ...state.apis,
      ...state.redisClusterNodes,
      state.postgres.primary,
      state.postgres.replica,
      state.postgres.pgbouncer,
    ];
    for (const address of addresses) expect(await listening(address), address).toBe(false);
  }, 240_000);
});
