import { quoted, type DetachedPeriod, type Queryable } from '@ingest/event-log';
import { linePrefix, type RowTable } from './archive-files.js';

interface TableShape {
  /** The primary key, read in its order (its index serves the keyset pages). */
  key: Array<{ column: string; type: string }>;
  /**
   * A row as JSON, built by PostgreSQL so that every column is exact: jsonb stays jsonb,
   * text[] an array, timestamps ISO strings to the millisecond with their offset. The
   * bigint `sequence` becomes a string, which no JSON reader can round off.
   */
  row: string;
}

const SHAPES: Record<RowTable, TableShape> = {
  webhook_logs: {
    key: [{ column: 'id', type: 'uuid' }],
    row: `to_jsonb(t) || jsonb_build_object('sequence', t.sequence::text)`,
  },
  event_attempts: {
    key: [
      { column: 'event_id', type: 'uuid' },
      { column: 'number', type: 'int' },
    ],
    row: 'to_jsonb(t)',
  },
};

function pageQuery(table: RowTable, source: string, after: boolean): string {
  const { key, row } = SHAPES[table];
  const columns = key.map(({ column }) => `t.${column}`).join(', ');
  const keys = key.map(({ column }, i) => `t.${column}::text AS k${i}`).join(', ');
  const bound = key.map(({ type }, i) => `$${i + 2}::${type}`).join(', ');
  return `SELECT ${keys}, (${row})::text AS row FROM ${quoted(source)} t
          ${after ? `WHERE (${columns}) > (${bound})` : ''}
          ORDER BY ${columns} LIMIT $1`;
}

/**
 * A table's rows as archive lines, one page of lines per chunk, read page by page by
 * primary key (keyset pagination): memory holds one page however large the period, and
 * each page is an index range scan however deep into the table it is.
 */
async function* tableLines(
  on: Queryable,
  table: RowTable,
  source: string,
  pageRows: number,
  counted: Record<RowTable, number>,
): AsyncGenerator<string> {
  const prefix = linePrefix(table);
  let after: string[] | undefined;
  for (;;) {
    const { rows } = await on.query<Record<string, string>>(
      pageQuery(table, source, after !== undefined),
      [pageRows, ...(after ?? [])],
    );
    if (rows.length === 0) return;
    counted[table] += rows.length;
    yield rows.map((row) => `${prefix}${row.row}}\n`).join('');
    const last = rows[rows.length - 1]!;
    after = SHAPES[table].key.map((_, i) => last[`k${i}`]!);
    if (rows.length < pageRows) return;
  }
}

/** Every line of a period's archive: its events, then their attempts, as a reader expects. */
export async function* periodLines(
  on: Queryable,
  period: DetachedPeriod,
  pageRows: number,
  counted: Record<RowTable, number>,
): AsyncGenerator<string> {
  yield* tableLines(on, 'webhook_logs', period.logs, pageRows, counted);
  if (period.attempts !== null)
    yield* tableLines(on, 'event_attempts', period.attempts, pageRows, counted);
}
