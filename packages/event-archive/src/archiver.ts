import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Archiver, DetachedPeriod } from '@ingest/event-log';
import type pg from 'pg';
import {
  archivePaths,
  tempPathOf,
  type ArchiveManifest,
  type ArchivePaths,
  type RowTable,
} from './archive-files.js';
import {
  digestTap,
  removeDurably,
  renameDurably,
  syncFile,
  writeFileDurably,
  type Digest,
} from './durable-files.js';
import { periodRange } from './period-range.js';
import { periodLines } from './row-lines.js';

export interface ArchiverOptions {
  /** Rows read per query; a page's lines are what the archiver holds in memory. */
  pageRows?: number;
}

const PAGE_ROWS = 1_000;

/**
 * An Archiver for runRetention that writes each period to `dir` as a gzipped NDJSON file
 * and a manifest (see README.md). It resolves once both are on disk, fsynced; called again
 * for the same period (after a crash), it writes the archive again from the start.
 */
export function createArchiver(
  pool: pg.Pool,
  dir: string,
  options: ArchiverOptions = {},
): Archiver {
  const pageRows = options.pageRows ?? PAGE_ROWS;
  return async (period) => {
    await mkdir(dir, { recursive: true });
    const paths = archivePaths(dir, period.logs);
    // The manifest marks a complete archive, so it goes first: from here until the new
    // one is written there is no archive of this period, never one whose manifest
    // describes other data than the file beside it.
    await removeDurably(paths.manifest);
    const range = await periodRange(pool, period.logs);
    const { digest, rows } = await writeData(pool, period, paths, pageRows);
    const manifest: ArchiveManifest = {
      format: 1,
      file: basename(paths.data),
      ...digest,
      rows,
      range,
      source: { logs: period.logs, attempts: period.attempts },
      createdAt: new Date().toISOString(),
    };
    await writeFileDurably(
      paths.manifest,
      tempPathOf(paths.manifest),
      `${JSON.stringify(manifest, null, 2)}\n`,
    );
  };
}

/** Writes the data file under its temp name, fsyncs it, then renames it into place. */
async function writeData(
  pool: pg.Pool,
  period: DetachedPeriod,
  paths: ArchivePaths,
  pageRows: number,
): Promise<{ digest: Digest; rows: Record<RowTable, number> }> {
  const temp = tempPathOf(paths.data);
  const rows: Record<RowTable, number> = { webhook_logs: 0, event_attempts: 0 };
  const { tap, digest } = digestTap();
  try {
    // The 'w' flag truncates a temp file a crashed run left behind.
    await pipeline(
      Readable.from(periodLines(pool, period, pageRows, rows)),
      createGzip(),
      tap,
      createWriteStream(temp, { flags: 'w' }),
    );
    await syncFile(temp);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await renameDurably(temp, paths.data);
  return { digest: digest(), rows };
}
