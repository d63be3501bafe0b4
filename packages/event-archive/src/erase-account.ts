import { createReadStream, createWriteStream } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import {
  ArchiveManifestSchema,
  archivePathsOf,
  linePrefix,
  tempPathOf,
  type ArchiveManifest,
} from './archive-files.js';
import { digestTap, renameDurably, syncFile, writeFileDurably } from './durable-files.js';

const LOGS = linePrefix('webhook_logs');
const ATTEMPTS = linePrefix('event_attempts');

interface ArchivedRow {
  row: { id?: string; account_id?: string; event_id?: string };
}

interface LineCounts {
  webhook_logs: number;
  event_attempts: number;
}

/**
 * An archive's lines without the account's: its webhook_logs rows, and the event_attempts
 * rows of those events (a file holds every webhook_logs line before the first attempt, so
 * one pass knows every id it must drop). Counts what it leaves out and what it keeps.
 */
async function* linesWithout(
  path: string,
  accountId: string,
  counts: { dropped: LineCounts; kept: LineCounts },
): AsyncGenerator<string> {
  const { dropped, kept } = counts;
  const erased = new Set<string>();
  const lines = createInterface({ input: createReadStream(path).pipe(createGunzip()) });
  for await (const line of lines) {
    if (line.startsWith(LOGS)) {
      const { row } = JSON.parse(line) as ArchivedRow;
      if (row.account_id === accountId) {
        erased.add(row.id ?? '');
        dropped.webhook_logs += 1;
        continue;
      }
      kept.webhook_logs += 1;
    } else if (line.startsWith(ATTEMPTS)) {
      if (erased.size > 0) {
        const { row } = JSON.parse(line) as ArchivedRow;
        if (erased.has(row.event_id ?? '')) {
          dropped.event_attempts += 1;
          continue;
        }
      }
      kept.event_attempts += 1;
    }
    yield `${line}\n`;
  }
}

/**
 * Rewrites the archive whose data file is `file` without `accountId`'s rows, if it holds
 * any: the new data file goes in by an atomic rename once on disk, then a manifest that
 * describes it. Returns the lines removed. A crash between the two leaves a manifest that
 * no longer matches (a restore refuses it); the next call rewrites the file again, finds
 * nothing more to drop, and writes the manifest that matches.
 */
async function eraseFromArchive(file: string, accountId: string): Promise<number> {
  const paths = archivePathsOf(file);
  const manifest: ArchiveManifest = ArchiveManifestSchema.parse(
    JSON.parse(await readFile(paths.manifest, 'utf8')),
  );
  const counts = {
    dropped: { webhook_logs: 0, event_attempts: 0 },
    kept: { webhook_logs: 0, event_attempts: 0 },
  };
  const temp = tempPathOf(paths.data);
  const { tap, digest } = digestTap();
  try {
    await pipeline(
      Readable.from(linesWithout(paths.data, accountId, counts)),
      createGzip(),
      tap,
      createWriteStream(temp, { flags: 'w' }),
    );
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  const written = digest();
  const removed = counts.dropped.webhook_logs + counts.dropped.event_attempts;
  if (removed > 0) {
    await syncFile(temp);
    await renameDurably(temp, paths.data);
  } else {
    // The same lines gzip to the same bytes: the file in place is what was just written.
    await rm(temp, { force: true });
    if (written.sha256 === manifest.sha256) return 0;
    // Nothing of the account is left, but the manifest describes an earlier file: a crash
    // came between the rename and the manifest. Describe the file in place.
  }
  await writeFileDurably(
    paths.manifest,
    tempPathOf(paths.manifest),
    `${JSON.stringify({ ...manifest, ...written, rows: counts.kept }, null, 2)}\n`,
  );
  return removed;
}

/**
 * Every archive in `dir` rewritten without `accountId`'s rows; the lines removed, by data
 * file name, for the archives that held any. Archives are rewritten rather than their
 * rows encrypted per account: an archive is read whole only to restore it, so the cost of
 * a rewrite falls on the rare erasure, not on every archive written.
 */
export async function eraseAccountFromArchives(
  dir: string,
  accountId: string,
): Promise<Record<string, number>> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return {};
    throw error;
  }
  const removed: Record<string, number> = {};
  for (const name of names.filter((entry) => entry.endsWith('.ndjson.gz')).sort()) {
    const lines = await eraseFromArchive(join(dir, name), accountId);
    if (lines > 0) removed[name] = lines;
  }
  return removed;
}
