// The checks must be able to fail. After a clean scenario, its ledger snapshot is
// tampered with in memory, one fault at a time (a lost event, a doubled one, an overtaken
// update, altered content), and each must be caught in the right column.
import { checkLedger } from './ledger.js';
import type { LedgerSnapshot, LogRow } from './ledger-queries.js';
import type { LedgerReport } from './ledger-report.js';
import type { SentEvent } from './load-generator.js';

type Column = 'lost' | 'duplicated' | 'mismatches';
type Tamper = (snapshot: LedgerSnapshot, sent: SentEvent[]) => boolean;

const succeededRow = (snapshot: LedgerSnapshot, event?: string) =>
  snapshot.rows.find((row) => row.status === 'succeeded' && (!event || row.event === event));
const slugOf = (row: LogRow) => (row.payload as { slug?: string } | null)?.slug;

const TAMPERS: Array<{ name: string; column: Column; tamper: Tamper }> = [
  {
    name: 'an accepted event has no row',
    column: 'lost',
    // Not simply the first row: that may be an event refused on purpose (rejected), whose
    // missing row is judged by the rejections check, not as lost.
    tamper: (snapshot) => {
      const index = snapshot.rows.findIndex((row) => row.status !== 'rejected');
      return index >= 0 && snapshot.rows.splice(index, 1).length === 1;
    },
  },
  {
    name: 'an event stays processing',
    column: 'lost',
    tamper: (snapshot) => {
      const row = succeededRow(snapshot);
      if (row === undefined) return false;
      row.status = 'processing';
      return true;
    },
  },
  {
    name: 'an event failed for a transient reason',
    column: 'lost',
    tamper: (snapshot) => {
      const row = succeededRow(snapshot);
      if (row === undefined) return false;
      Object.assign(row, { status: 'failed', errorCode: 'PROCESSING_FAILED' });
      return true;
    },
  },
  {
    name: 'one request recorded twice',
    column: 'duplicated',
    tamper: (snapshot) => {
      const row = snapshot.rows[0];
      if (row === undefined) return false;
      snapshot.rows.push({ ...row, id: '00000000-0000-7000-8000-000000000000', sequence: '9e9' });
      return true;
    },
  },
  {
    name: 'one key answered with two ids',
    column: 'duplicated',
    tamper: (_snapshot, sent) => {
      const event = sent.find((candidate) => candidate.accepted);
      if (event === undefined) return false;
      event.ids.add('00000000-0000-7000-8000-000000000001');
      return true;
    },
  },
  {
    name: 'an event applied twice',
    column: 'duplicated',
    tamper: (snapshot) => {
      const row = succeededRow(snapshot);
      const counts = row === undefined ? undefined : snapshot.attempts.get(row.id);
      if (counts === undefined) return false;
      counts.succeeded = 2;
      return true;
    },
  },
  {
    name: 'a highlight made twice',
    column: 'duplicated',
    tamper: (snapshot) => {
      const highlight = snapshot.highlights[0];
      if (highlight === undefined) return false;
      snapshot.highlights.push({ ...highlight });
      return true;
    },
  },
  {
    name: 'an update overtakes its create',
    column: 'mismatches',
    tamper: (snapshot) => {
      const update = succeededRow(snapshot, 'article.update');
      const slug = (update?.payload as { slug?: string } | undefined)?.slug;
      const index = snapshot.rows.findIndex(
        (row) => row.event === 'article.create' && slugOf(row) === slug,
      );
      if (update === undefined || index < 0) return false;
      snapshot.rows.splice(snapshot.rows.indexOf(update), 1);
      snapshot.rows.splice(index, 0, update);
      return true;
    },
  },
  {
    // With several events of a slug in flight, updates are what overtakes most often.
    name: 'two updates of a title applied in the wrong order',
    column: 'mismatches',
    tamper: (snapshot) => {
      for (const { slug } of snapshot.articles) {
        // The last two events that set the article's title; when both are updates, no
        // create or delete came between them, and swapped, the replay ends with the
        // earlier title (each names its position in the script, so they differ).
        const [earlier, later] = snapshot.rows
          .filter(
            (row) =>
              row.status === 'succeeded' &&
              slugOf(row) === slug &&
              (row.event === 'article.create' || row.event === 'article.update') &&
              (row.payload as { title?: string }).title !== undefined,
          )
          .slice(-2);
        if (earlier?.event !== 'article.update' || later?.event !== 'article.update') continue;
        const at = snapshot.rows.indexOf(earlier);
        snapshot.rows[snapshot.rows.indexOf(later)] = earlier;
        snapshot.rows[at] = later;
        return true;
      }
      return false;
    },
  },
  {
    name: 'an invalid event not recorded as rejected',
    column: 'mismatches',
    tamper: (snapshot) => {
      const index = snapshot.rows.findIndex((row) => row.status === 'rejected');
      if (index < 0) return false;
      snapshot.rows.splice(index, 1);
      return true;
    },
  },
  {
    name: 'an article title differs',
    column: 'mismatches',
    tamper: (snapshot) => {
      const article = snapshot.articles[0];
      if (article === undefined) return false;
      article.title += ' (edited)';
      return true;
    },
  },
];

export interface SelfCheck {
  /** Tampers the ledger did not report: each one is a hole in the checks. */
  missed: string[];
  /** Tampers no clean scenario had material for (say, no highlight was sent). */
  skipped: string[];
}

/**
 * Runs every tamper on a copy of the first clean scenario that has something to tamper
 * with (`clean`: what passing scenarios checked, richest first).
 */
export function selfCheckLedger(
  clean: Array<{ snapshot: LedgerSnapshot; sent: SentEvent[] }>,
): SelfCheck {
  const result: SelfCheck = { missed: [], skipped: [] };
  for (const { name, column, tamper } of TAMPERS) {
    let tried = false;
    for (const { snapshot, sent } of clean) {
      const copy = structuredClone({ snapshot, sent });
      if (!tamper(copy.snapshot, copy.sent)) continue;
      tried = true;
      const report: LedgerReport = checkLedger(copy.snapshot, copy.sent);
      if (report[column].length === 0) result.missed.push(`${name}: not reported as ${column}`);
      break;
    }
    if (!tried) result.skipped.push(name);
  }
  return result;
}
