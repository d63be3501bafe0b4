// The `ingest` CLI's everyday commands against the real service: log in, make a key kept in
// the config file, publish and wait, read a receipt, manage an endpoint. Credentials come
// from the config file the CLI wrote, and none of them is ever printed.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTsEntry } from '@ingest/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPublisher, startService, type RunningService } from './support/service.js';

const CLI = 'packages/client/src/cli/main.ts';

let service: RunningService;
let dir: string;
beforeAll(async () => {
  service = await startService();
  dir = await mkdtemp(join(tmpdir(), 'ingest-cli-config-'));
}, 60_000);
afterAll(async () => {
  await service?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('the ingest CLI', () => {
  it('logs in, keeps a key, publishes, reads receipts and endpoints, printing no secret', async () => {
    const { credentials } = await newPublisher(service);
    // Only the config directory and the address: every credential comes from the file.
    const env = { XDG_CONFIG_HOME: dir, INGEST_PASSWORD: credentials.password };
    const ingest = (...args: string[]) => runTsEntry(CLI, { args, env, timeoutMs: 60_000 });
    const outputs: string[] = [];
    const run = async (...args: string[]) => {
      const ran = await ingest(...args);
      outputs.push(ran.stdout, ran.stderr);
      expect(ran.code, `ingest ${args.join(' ')}\n${ran.stderr}`).toBe(0);
      return ran;
    };

    await run('--service', service.url, 'login', '--email', credentials.email);
    const configFile = join(dir, 'ingest', 'config.json');
    expect((await stat(configFile)).mode & 0o777).toBe(0o600);
    const config = JSON.parse(await readFile(configFile, 'utf8')) as Record<string, string>;
    expect(config.url).toBe(service.url);
    expect(config.token).toMatch(/^ey/);

    const created = await run(
      'keys',
      'create',
      '--name',
      'cli',
      '--scopes',
      'content:create,content:read',
      '--save',
    );
    const saved = JSON.parse(await readFile(configFile, 'utf8')) as Record<string, string>;
    expect(saved.apiKey).toMatch(/^sk-/);
    expect(JSON.parse(created.stdout)).toMatchObject({ name: 'cli' });

    const article = join(dir, 'article.json');
    await writeFile(article, JSON.stringify({ title: 'From the shell', body: ['Typed in.'] }));
    const published = await run(
      'publish',
      'article.create',
      '--data',
      `@${article}`,
      '--wait',
      '10',
    );
    const receipt = JSON.parse(published.stdout) as { id: string; status: string };
    expect(receipt.status).toBe('succeeded');
    const read = await run('receipt', receipt.id);
    expect(JSON.parse(read.stdout)).toMatchObject({ id: receipt.id, status: 'succeeded' });
    const succeeded = await run('receipts', '--status', 'succeeded', '--since', '1h');
    expect(JSON.parse(succeeded.stdout)).toEqual([expect.objectContaining({ id: receipt.id })]);
    const failedOnes = await run('receipts', '--status', 'failed', '--event', 'article.create');
    expect(JSON.parse(failedOnes.stdout)).toEqual([]);

    const listed = await run('keys', 'list');
    expect((JSON.parse(listed.stdout) as unknown[]).length).toBeGreaterThan(0);
    const endpoint = await run(
      'endpoints',
      'create',
      '--url',
      'https://hooks.example.com/cli',
      '--events',
      'article.created',
    );
    const made = JSON.parse(endpoint.stdout) as { id: string; url: string; events: string[] };
    expect(made).toMatchObject({
      url: 'https://hooks.example.com/cli',
      events: ['article.created'],
    });
    const endpointsListed = JSON.parse((await run('endpoints', 'list')).stdout) as unknown[];
    expect(endpointsListed).toContainEqual(expect.objectContaining({ id: made.id }));
    await run('endpoints', 'delete', made.id);

    const refused = await ingest('publish', 'article.create', '--data', '{"title": ""}');
    outputs.push(refused.stdout, refused.stderr);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/VALIDATION_FAILED 400: .+\(request .+\)/);

    const mistyped = await ingest('publish', 'article.create');
    expect(mistyped.code).toBe(2);

    for (const secret of [saved.token!, saved.apiKey!, saved.signingSecret!, credentials.password])
      for (const output of outputs) expect(output).not.toContain(secret);
  }, 120_000);
});
