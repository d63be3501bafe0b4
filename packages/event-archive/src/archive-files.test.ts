import { describe, expect, it } from 'vitest';
import {
  archivePaths,
  archivePathsOf,
  ArchiveManifestSchema,
  linePrefix,
} from './archive-files.js';

describe('archive files', () => {
  it('names the data file and the manifest after the detached events table', () => {
    const paths = archivePaths('/a', 'webhook_logs_p20261023');
    expect(paths).toEqual({
      data: '/a/webhook_logs_p20261023.ndjson.gz',
      manifest: '/a/webhook_logs_p20261023.manifest.json',
    });
    expect(archivePathsOf(paths.data)).toEqual(paths);
    expect(archivePathsOf(paths.manifest)).toEqual(paths);
    expect(() => archivePathsOf('/a/webhook_logs_p20261023.ndjson')).toThrow(
      /not an event archive/,
    );
  });

  it('starts each line with its table, as a JSON reader sees it', () => {
    const line = `${linePrefix('event_attempts')}{"number": 1}}`;
    expect(JSON.parse(line)).toEqual({ table: 'event_attempts', row: { number: 1 } });
  });

  it('refuses a manifest of another format', () => {
    const manifest = {
      format: 1,
      file: 'webhook_logs_legacy.ndjson.gz',
      sha256: 'a'.repeat(64),
      bytes: 10,
      rows: { webhook_logs: 1, event_attempts: 0 },
      range: { fromMs: null, toMs: 1_790_000_000_000 },
      source: { logs: 'webhook_logs_legacy', attempts: null },
      createdAt: new Date(0).toISOString(),
    };
    expect(ArchiveManifestSchema.parse(manifest)).toEqual(manifest);
    expect(ArchiveManifestSchema.safeParse({ ...manifest, format: 2 }).success).toBe(false);
  });
});
