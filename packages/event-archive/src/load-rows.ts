import { createReadStream } from 'node:fs';
import { pipeline, type Readable, type Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { quoted, type EventLogTable } from '@ingest/event-log';
import type pg from 'pg';
import { linePrefix, ROW_TABLES, type ArchiveManifest, type RowTable } from './archive-files.js';
import { digestTap } from './durable-files.js';

/** A batch also ends at this many characters of JSON, so large payloads stay bounded. */
const BATCH_CHARS = 8_000_000;

/**
 * Fills the restored tables from the archive, batch by batch, while hashing the bytes it
 * reads: what is loaded is exactly what was verified. Throws unless the rows and bytes
 * read are the ones the manifest counts.
 */
export async function loadRows(
  client: pg.PoolClient,
  dataFile: string,
  manifest: ArchiveManifest,
  partitions: Record<EventLogTable, string>,
  batchRows: number,
): Promise<Record<RowTable, number>> {
  const rows: Record<RowTable, number> = { webhook_logs: 0, event_attempts: 0 };
  const batch: { table: RowTable | undefined; lines: string[]; chars: number } = {
    table: undefined,
    lines: [],
    chars: 0,
  };
  const flush = async () => {
    if (batch.table === undefined || batch.lines.length === 0) return;
    await insertBatch(client, partitions[batch.table], batch.lines);
    rows[batch.table] += batch.lines.length;
    Object.assign(batch, { lines: [], chars: 0 });
  };
  const { tap, digest } = digestTap();
  let number = 0;
  for await (const line of linesOf(dataFile, tap)) {
    number += 1;
    const table = ROW_TABLES.find((t) => line.startsWith(linePrefix(t)));
    if (table === undefined)
      throw new Error(`line ${number} of ${dataFile} is not an archived row`);
    if (table !== batch.table || batch.lines.length >= batchRows || batch.chars >= BATCH_CHARS) {
      await flush();
      batch.table = table;
    }
    batch.lines.push(line);
    batch.chars += line.length;
  }
  await flush();
  if (digest().sha256 !== manifest.sha256)
    throw new Error(`${dataFile} changed while it was being restored; nothing restored`);
  for (const table of ROW_TABLES)
    if (rows[table] !== manifest.rows[table])
      throw new Error(
        `${dataFile} holds ${rows[table]} ${table} rows where its manifest says ${manifest.rows[table]}; nothing restored`,
      );
  return rows;
}

/**
 * jsonb_populate_record turns each archived row back into the table's own row type, with
 * every column's input function: the exact inverse of the to_jsonb that wrote it (the
 * sequence's string included). The lines go to PostgreSQL as text, unparsed by JavaScript,
 * whose numbers could round a large one in a payload.
 *
 * This is a write of event-log rows outside @ingest/event-log, on purpose: it fills a
 * table of its own, not yet part of the log, which becomes one only when attached, whole.
 */
async function insertBatch(client: pg.PoolClient, target: string, lines: string[]) {
  await client.query(
    `INSERT INTO ${quoted(target)}
     SELECT r.* FROM unnest($1::text[]) AS l(line),
       LATERAL jsonb_populate_record(NULL::${quoted(target)}, l.line::jsonb -> 'row') AS r`,
    [lines],
  );
}

/** The archive's lines, gunzipped as they are read; `tap` sees the raw bytes. */
async function* linesOf(file: string, tap: Transform): AsyncGenerator<string> {
  // The callback form returns the last stream; an error anywhere destroys it, so the
  // loop below throws it.
  const text: Readable = pipeline(createReadStream(file), tap, createGunzip(), () => undefined);
  text.setEncoding('utf8');
  let rest = '';
  for await (const chunk of text as AsyncIterable<string>) {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    yield* lines;
  }
  if (rest !== '') throw new Error(`${file} ends in the middle of a line`);
}
