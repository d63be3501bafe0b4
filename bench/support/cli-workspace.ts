// What a phase needs to run the `ingest` CLI as a publisher does: an account of its own
// with one key, a file of article.create lines, and a directory for the CLI's settings,
// all in a temporary directory that is removed however the run ends.
import { rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublisher, fetchClient, newAccountFields } from '@ingest/test-harness';
import type { BenchEnvironment } from '../bench-environment.js';
import { createLine } from './bulk-publish.js';
import type { Publisher } from './timed-publish.js';

export interface CliWorkspace {
  publisher: Publisher;
  /** The NDJSON file: `events` creates with slugs unique to the run. */
  file: string;
  fileBytes: number;
  configDir: string;
}

/**
 * Makes the workspace for `name` (an account handle's suffix and the slugs' prefix: a-z
 * and digits), runs `body`, removes it.
 */
export async function withCliWorkspace<T>(
  env: BenchEnvironment,
  name: string,
  events: number,
  body: (workspace: CliWorkspace) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), `bench-${name}-`));
  // The watchdog and Ctrl-C end the run with process.exit: no finally runs then.
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', removeDir);
  try {
    const client = fetchClient(env.api.baseUrl);
    const account = await createPublisher(
      client,
      newAccountFields('bench.example', `bench_${name}`),
      1,
    );
    const publisher = { accountId: account.id, key: account.apiKeys[0] ?? '' };
    const file = join(dir, 'events.ndjson');
    const tag = env.tag(name);
    const lines = Array.from({ length: events }, (_, i) => createLine(tag, i + 1));
    const text = `${lines.join('\n')}\n`;
    await writeFile(file, text);
    const configDir = join(dir, 'config');
    return await body({ publisher, file, fileBytes: Buffer.byteLength(text), configDir });
  } finally {
    process.off('exit', removeDir);
    await rm(dir, { recursive: true, force: true });
  }
}
