// The `ingest endpoints` commands that shape a webhook's flow, against the real service:
// a filter (inline or from a file) and a rate set on create, shown on list and show; a
// filter naming an unknown field refused with the API's path; pause and resume; update
// dropping the filter and changing one limit while keeping the other.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTsEntry } from '@ingest/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPublisher, startService, type RunningService } from './support/service.js';

const CLI = 'packages/client/src/cli/main.ts';

interface ShownEndpoint {
  id: string;
  state: string;
  pausedReason: string | null;
  filter: unknown;
  rate: { perSecond: number | null; inFlight: number | null } | null;
}

let service: RunningService;
let dir: string;
beforeAll(async () => {
  service = await startService();
  dir = await mkdtemp(join(tmpdir(), 'ingest-cli-endpoints-'));
}, 60_000);
afterAll(async () => {
  await service?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('ingest endpoints', () => {
  it('creates with a filter and a rate, refuses a bad filter, pauses, resumes and updates', async () => {
    const { token } = await newPublisher(service);
    // An empty config directory: the service and the token come from the environment.
    const env = { XDG_CONFIG_HOME: dir, INGEST_URL: service.url, INGEST_TOKEN: token };
    const ingest = (...args: string[]) => runTsEntry(CLI, { args, env, timeoutMs: 60_000 });
    const run = async (...args: string[]): Promise<ShownEndpoint> => {
      const ran = await ingest(...args);
      expect(ran.code, `ingest ${args.join(' ')}\n${ran.stderr}`).toBe(0);
      return JSON.parse(ran.stdout) as ShownEndpoint;
    };

    const news = { field: 'data.article.category', eq: 'News' };
    const filterFile = join(dir, 'filter.json');
    await writeFile(filterFile, JSON.stringify(news));
    const created = await run(
      'endpoints',
      'create',
      '--url',
      'https://hooks.example.com/flow',
      '--events',
      'article.created,article.updated',
      '--filter',
      `@${filterFile}`,
      '--rate',
      '20',
      '--in-flight',
      '4',
    );
    expect(created).toMatchObject({
      state: 'enabled',
      pausedReason: null,
      filter: news,
      rate: { perSecond: 20, inFlight: 4 },
    });
    const { id } = created;
    expect(await run('endpoints', 'show', id)).toMatchObject({ filter: news, rate: created.rate });
    const listed = JSON.parse((await ingest('endpoints', 'list')).stdout) as ShownEndpoint[];
    expect(listed).toContainEqual(
      expect.objectContaining({ id, filter: news, rate: created.rate }),
    );

    const inline = await run(
      'endpoints',
      'create',
      '--url',
      'https://hooks.example.com/inline',
      '--filter',
      '{"field": "data.article.slug", "prefix": "launch-"}',
    );
    expect(inline).toMatchObject({
      filter: { field: 'data.article.slug', prefix: 'launch-' },
      rate: null,
    });

    const refused = await ingest(
      'endpoints',
      'create',
      '--url',
      'https://hooks.example.com/refused',
      '--filter',
      JSON.stringify({ and: [news, { field: 'data.article.nope', eq: 1 }] }),
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/VALIDATION_FAILED 400: /);
    expect(refused.stderr).toMatch(/^ {2}filter\.and\.1\.field: .+/m);
    const notJson = await ingest('endpoints', 'update', id, '--filter', '{"field":');
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('--filter is not JSON');

    const paused = await run('endpoints', 'pause', id);
    expect(paused.state).toBe('paused');
    expect(paused.pausedReason).toEqual(expect.any(String));
    expect(await run('endpoints', 'show', id)).toMatchObject({
      state: 'paused',
      pausedReason: paused.pausedReason,
    });
    const resumed = await run('endpoints', 'resume', id);
    expect(resumed).toMatchObject({ state: 'enabled', pausedReason: null });

    const unfiltered = await run('endpoints', 'update', id, '--no-filter');
    expect(unfiltered).toMatchObject({ filter: null, rate: { perSecond: 20, inFlight: 4 } });
    const slower = await run('endpoints', 'update', id, '--rate', '5');
    expect(slower.rate).toEqual({ perSecond: 5, inFlight: 4 });
    const onlyInFlight = await run('endpoints', 'update', id, '--no-rate', '--in-flight', '2');
    expect(onlyInFlight.rate).toEqual({ perSecond: null, inFlight: 2 });
    const unlimited = await run('endpoints', 'update', id, '--no-rate');
    expect(unlimited).toMatchObject({ rate: null, filter: null, state: 'enabled' });

    const nothing = await ingest('endpoints', 'update', id);
    expect(nothing.code).toBe(2);

    for (const made of [id, inline.id])
      expect((await ingest('endpoints', 'delete', made)).code).toBe(0);
  }, 180_000);
});
