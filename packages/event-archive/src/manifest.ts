import { readFile } from 'node:fs/promises';
import {
  ArchiveManifestSchema,
  archivePathsOf,
  type ArchiveManifest,
  type ArchivePaths,
} from './archive-files.js';
import { digestOf } from './durable-files.js';

const codeOf = (error: unknown): unknown => (error as { code?: unknown }).code;

async function readManifest(path: string, file: string): Promise<ArchiveManifest> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (codeOf(error) !== 'ENOENT') throw error;
    throw new Error(
      `no manifest beside ${file} (${path}): the archive is incomplete (its writing stopped) or not an archive; refusing to restore it`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`the manifest ${path} is not JSON; refusing to restore`);
  }
  const parsed = ArchiveManifestSchema.safeParse(json);
  if (!parsed.success)
    throw new Error(
      `the manifest ${path} is not one this version reads (${parsed.error.issues
        .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
        .join('; ')}); refusing to restore`,
    );
  return parsed.data;
}

/**
 * The manifest of the archive `file` names, once its data file is checked against it:
 * refuses (throws) an archive without a manifest, or whose bytes differ from what it says.
 */
export async function verifiedArchive(
  file: string,
): Promise<{ paths: ArchivePaths; manifest: ArchiveManifest }> {
  const paths = archivePathsOf(file);
  const manifest = await readManifest(paths.manifest, file);
  let actual;
  try {
    actual = await digestOf(paths.data);
  } catch (error) {
    if (codeOf(error) !== 'ENOENT') throw error;
    throw new Error(`the archive data file ${paths.data} is missing; refusing to restore`);
  }
  if (actual.sha256 !== manifest.sha256 || actual.bytes !== manifest.bytes)
    throw new Error(
      `${paths.data} does not match its manifest (sha256 ${actual.sha256}, ${actual.bytes} bytes; the manifest says ${manifest.sha256}, ${manifest.bytes} bytes): the file is damaged or not this archive; refusing to restore`,
    );
  return { paths, manifest };
}
