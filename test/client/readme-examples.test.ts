// The client's README is run: each of its TypeScript examples, as a reader would copy it,
// against the real service (API and worker processes), and what it prints is checked. The
// package itself builds into what it publishes, and its CLI answers from the repository.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT, runCommand } from '@ingest/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPublisher, startService, type RunningService } from './support/service.js';

const README = join(REPO_ROOT, 'packages/client/README.md');

let service: RunningService;
let dir: string;
beforeAll(async () => {
  service = await startService();
  // Inside the repository, so that `@ingest/client` resolves as it would for a user of
  // the package (through test/node_modules).
  dir = await mkdtemp(join(REPO_ROOT, 'test/client/.examples-'));
}, 60_000);
afterAll(async () => {
  await service?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const tsBlocks = (markdown: string): string[] =>
  [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);

describe('the client README', () => {
  it('runs every TypeScript example as written', async () => {
    const { credentials, key } = await newPublisher(service);
    const env = {
      INGEST_URL: service.url,
      INGEST_EMAIL: credentials.email,
      INGEST_PASSWORD: credentials.password,
      INGEST_API_KEY: key.key,
      INGEST_SIGNING_SECRET: key.signingSecret,
    };
    const blocks = tsBlocks(await readFile(README, 'utf8'));
    // What each example prints, in README order.
    const expected = [
      /^succeeded [0-9a-f-]{36} \S+$/m,
      /^succeeded\n[0-9a-f-]{36} article\.create /m,
      /^queued [0-9a-f-]{36}\nqueued [0-9a-f-]{36}\nrefused VALIDATION_FAILED [0-9a-f-]{36}$/m,
      /^400 VALIDATION_FAILED .+\n[\s\S]*data\.title: /m,
      /^succeeded$/m,
      /^204\n400$/m,
    ];
    expect(blocks).toHaveLength(expected.length);
    for (const [index, block] of blocks.entries()) {
      const file = join(dir, `example-${index + 1}.ts`);
      await writeFile(file, block);
      const ran = await runCommand(join(REPO_ROOT, 'node_modules/.bin/tsx'), [file], {
        env,
        timeoutMs: 60_000,
      });
      expect(ran.code, `example ${index + 1}:\n${block}\n${ran.stderr}`).toBe(0);
      expect(ran.stdout, `example ${index + 1}`).toMatch(expected[index]!);
      for (const secret of [key.key, key.signingSecret, credentials.password])
        expect(ran.stdout + ran.stderr).not.toContain(secret);
    }
  }, 180_000);
});

describe('the package', () => {
  it('builds into ESM with types, depends on no package of the service, and its CLI runs', async () => {
    const built = await runCommand('pnpm', ['--filter', '@ingest/client', 'build'], {
      timeoutMs: 120_000,
    });
    expect(built.code, built.stderr + built.stdout).toBe(0);
    const manifest = JSON.parse(
      await readFile(join(REPO_ROOT, 'packages/client/package.json'), 'utf8'),
    ) as { dependencies: Record<string, string>; bin: Record<string, string> };
    expect(
      Object.keys(manifest.dependencies).filter((name) => name.startsWith('@ingest/')),
    ).toEqual([]);
    const dist = join(REPO_ROOT, 'packages/client/dist');
    await expect(readFile(join(dist, 'index.d.ts'), 'utf8')).resolves.toContain('IngestClient');
    const imported = await runCommand(process.execPath, [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(join(dist, 'index.js'))}); console.log(Object.keys(m).sort().join(','))`,
    ]);
    expect(imported.stdout).toMatch(/IngestClient,IngestError,.*verifyWebhook/);
    const help = await runCommand(process.execPath, [
      join(REPO_ROOT, 'packages/client', manifest.bin.ingest!),
      '--help',
    ]);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/publish \[options\] \[event\]/);

    const fromRoot = await runCommand('pnpm', ['--silent', 'ingest', '--help']);
    expect(fromRoot.code, fromRoot.stderr).toBe(0);
    expect(fromRoot.stdout).toContain('keys');
  }, 180_000);
});
