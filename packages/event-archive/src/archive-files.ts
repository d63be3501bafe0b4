import { basename, dirname, join } from 'node:path';
import { z } from 'zod';

const DATA_SUFFIX = '.ndjson.gz';
const MANIFEST_SUFFIX = '.manifest.json';
/**
 * Fixed, not random: a crash leaves at most one temp file per archive, which the next run
 * for the same period overwrites. Never read as an archive: only renamed into place.
 */
const TEMP_SUFFIX = '.tmp';

export interface ArchivePaths {
  data: string;
  manifest: string;
}

/** Where a period's archive lives: both named after its detached webhook_logs table. */
export const archivePaths = (dir: string, logsTable: string): ArchivePaths => ({
  data: join(dir, `${logsTable}${DATA_SUFFIX}`),
  manifest: join(dir, `${logsTable}${MANIFEST_SUFFIX}`),
});

export const tempPathOf = (path: string): string => `${path}${TEMP_SUFFIX}`;

/** The archive a path names: its data file, or its manifest (both are accepted). */
export function archivePathsOf(file: string): ArchivePaths {
  const name = basename(file);
  const suffix = [DATA_SUFFIX, MANIFEST_SUFFIX].find((end) => name.endsWith(end));
  if (suffix === undefined)
    throw new Error(`${file} is not an event archive (expected a *${DATA_SUFFIX} file)`);
  return archivePaths(dirname(file), name.slice(0, -suffix.length));
}

/** The line format of format 1: one row a line, webhook_logs first, each table in key order. */
export const ROW_TABLES = ['webhook_logs', 'event_attempts'] as const;
export type RowTable = (typeof ROW_TABLES)[number];

/** How each line starts: written exactly so, which lets a restore route a line unparsed. */
export const linePrefix = (table: RowTable): string => `{"table":"${table}","row":`;

const count = z.number().int().nonnegative();

/** The mark of a complete archive: written last, and only once the data file is durable. */
export const ArchiveManifestSchema = z.object({
  format: z.literal(1),
  /** The data file's name, in the manifest's directory. */
  file: z.string(),
  /** Of the gzip bytes, as written. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: count,
  rows: z.object({ webhook_logs: count, event_attempts: count }),
  /** The period's id range, as moments: [fromMs, toMs); fromMs null when open below. */
  range: z.object({ fromMs: z.number().int().nullable(), toMs: z.number().int() }),
  /** The detached tables archived. */
  source: z.object({ logs: z.string(), attempts: z.string().nullable() }),
  createdAt: z.iso.datetime(),
});
export type ArchiveManifest = z.infer<typeof ArchiveManifestSchema>;
