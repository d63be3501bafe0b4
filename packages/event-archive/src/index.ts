// Archives of the event log's expired periods, and their restore: see README.md.
export { createArchiver, type ArchiverOptions } from './archiver.js';
export { restoreArchive, type RestoreOptions, type RestoreReport } from './restore.js';
export { dropRestored, type DropReport } from './drop-restored.js';
export {
  archivePaths,
  ArchiveManifestSchema,
  type ArchiveManifest,
  type ArchivePaths,
} from './archive-files.js';
export { eraseAccountFromArchives } from './erase-account.js';
export { periodRange, type PeriodRange } from './period-range.js';
export type { LockRetry } from './partition-lock.js';
