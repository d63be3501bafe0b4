import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * A rename or unlink is durable only once its directory is: without this, a power loss
 * can bring back the old name (or lose the new one) after we reported success.
 */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Moves a written and fsynced temp file to its name, atomically and durably. */
export async function renameDurably(temp: string, path: string): Promise<void> {
  await rename(temp, path);
  await syncDirectory(dirname(path));
}

/** Writes `content` to `path` so that a reader sees the old file, or all of the new one. */
export async function writeFileDurably(path: string, temp: string, content: string) {
  const handle = await open(temp, 'w');
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await renameDurably(temp, path);
}

/** Removes `path` if it exists, durably: a later write must not find it back after a crash. */
export async function removeDurably(path: string): Promise<void> {
  await rm(path, { force: true });
  await syncDirectory(dirname(path));
}

export interface Digest {
  sha256: string;
  bytes: number;
}

/** A pass-through that hashes and counts what flows through it. */
export function digestTap(): { tap: Transform; digest: () => Digest } {
  const hash = createHash('sha256');
  let bytes = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  return { tap, digest: () => ({ sha256: hash.digest('hex'), bytes }) };
}

/** The sha256 and size of a file, read as a stream. */
export async function digestOf(path: string): Promise<Digest> {
  const hash = createHash('sha256');
  let bytes = 0;
  await pipeline(createReadStream(path), async (chunks: AsyncIterable<Buffer>) => {
    for await (const chunk of chunks) {
      hash.update(chunk);
      bytes += chunk.length;
    }
  });
  return { sha256: hash.digest('hex'), bytes };
}

/** Flushes a written file's data to disk (fsync applies to the file, whichever descriptor). */
export async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
