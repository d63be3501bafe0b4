import { AppError } from '@ingest/contracts';

/**
 * Keyset pagination, newest first: a page ends at its last row's (time, id), and the
 * cursor handed to clients is that position, opaque (base64url). The id breaks ties
 * between rows of the same millisecond.
 */
export interface Position {
  at: Date;
  id: string;
}

export const encodeCursor = (position: Position): string =>
  Buffer.from(`${position.at.toISOString()}|${position.id}`).toString('base64url');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// Years 1000-9999 only: JavaScript dates reach far past what PostgreSQL accepts (no year 0).
const ISO_INSTANT = /^[1-9]\d{3}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * The position in a cursor this API gave out. Anything else is refused here, as a 400:
 * a malformed id or an out-of-range date would otherwise fail in the database, as a 500.
 */
export function decodeCursor(cursor: string): Position {
  const parts = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const [text = '', id = ''] = parts;
  const at = new Date(text);
  // The round trip also refuses dates that JavaScript would roll over (02-31 -> 03-03).
  const valid =
    parts.length === 2 &&
    UUID.test(id) &&
    ISO_INSTANT.test(text) &&
    !Number.isNaN(at.getTime()) &&
    at.toISOString() === text;
  if (!valid) {
    throw new AppError('VALIDATION_FAILED', 'The cursor is not one this API gave out', {
      errors: [{ path: 'query.cursor', message: 'is not a cursor from a previous page' }],
    });
  }
  return { at, id };
}

/** The Prisma filter for rows after `cursor` in (`field` desc, id desc) order. */
export function rowsAfter<Field extends string>(cursor: string | undefined, field: Field) {
  if (cursor === undefined) return {};
  const { at, id } = decodeCursor(cursor);
  return { OR: [{ [field]: { lt: at } }, { [field]: at, id: { lt: id } }] };
}

/**
 * One page of rows fetched with `take: limit + 1`: the extra row only says that another
 * page exists, without a count query.
 */
export function toPage<Row extends { id: string }, Item>(
  rows: Row[],
  limit: number,
  positionOf: (row: Row) => Date,
  present: (row: Row) => Item,
): { items: Item[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map(present),
    nextCursor:
      rows.length > limit && last !== undefined
        ? encodeCursor({ at: positionOf(last), id: last.id })
        : null,
  };
}
