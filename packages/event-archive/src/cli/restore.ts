// `pnpm events:restore <file>`: loads an event archive back into the log as a restored
// partition pair; `pnpm events:restore --drop <partition>` drops such a pair again. It
// reads DATABASE_URL alone. Failing, it prints one line and exits 1: the causes (a
// damaged file, a clash with the log's partitions, a database down) are the operator's
// to act on, and a stack trace would only bury them.
import { isAbsolute, resolve } from 'node:path';
import { ConfigError, loadDatabaseUrl } from '@ingest/config';
import pg from 'pg';
import { dropRestored } from '../drop-restored.js';
import { restoreArchive, type RestoreReport } from '../restore.js';

const USAGE =
  'usage: pnpm events:restore <archive.ndjson.gz>   |   pnpm events:restore --drop <webhook_logs_r…>';

const args = process.argv.slice(2);
const drop = args[0] === '--drop';
const target = drop ? args[1] : args[0];
if (target === undefined || target.startsWith('--') || args.length !== (drop ? 2 : 1)) {
  console.error(USAGE);
  process.exit(2);
}

/**
 * pnpm runs the script in this package's folder; INIT_CWD is the folder pnpm was started
 * for (the repository root, for `pnpm events:restore`), which is what a relative path means.
 */
const fromOperator = (file: string) =>
  isAbsolute(file) ? file : resolve(process.env.INIT_CWD ?? process.cwd(), file);

const when = (ms: number | null) => (ms === null ? 'the beginning' : new Date(ms).toISOString());

const restored = (report: RestoreReport) =>
  `restored ${report.rows.webhook_logs} event(s) and ${report.rows.event_attempts} attempt(s) from ${report.file} into ${report.partitions.webhook_logs} and ${report.partitions.event_attempts} (ids made from ${when(report.range.fromMs)} until ${when(report.range.toMs)})`;

function reasonOf(error: unknown): string {
  if (error instanceof ConfigError) return error.problems.join('; ');
  const { message, code } = error as { message?: string; code?: string };
  // Node reports a refused connection to several addresses with an empty message.
  const reason = message === undefined || message === '' ? (code ?? String(error)) : message;
  return reason.replaceAll(/\s*\n\s*/g, '; ');
}

let pool: pg.Pool | undefined;
try {
  pool = new pg.Pool({ connectionString: loadDatabaseUrl(), max: 1 });
  if (drop) {
    const { dropped } = await dropRestored(pool, target);
    console.log(`dropped ${dropped.join(' and ')}`);
  } else {
    console.log(restored(await restoreArchive(pool, fromOperator(target))));
  }
} catch (error) {
  console.error(`events:restore failed: ${reasonOf(error)}`);
  process.exitCode = 1;
} finally {
  await pool?.end();
}
