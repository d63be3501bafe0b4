// How operators name an account (ACCOUNT_ID_OR_HANDLE, checked by the route's schema): an
// id as it is, a handle (no hyphen, so never a UUID) by its lower-cased form. One rule,
// in the two forms the services query with.
import { Prisma } from '@ingest/db';

const isId = (ref: string) => ref.includes('-');

/** The account a reference names, as a Prisma filter (a relation filter takes it too). */
export const accountByRef = (ref: string) =>
  isId(ref) ? { id: ref.toLowerCase() } : { handle: ref.toLowerCase() };

/**
 * The same as a SQL condition on an account id `column`: an id as it is, a handle through
 * one lookup that PostgreSQL runs once, before it reads the column's index.
 */
export const accountCondition = (ref: string, column = Prisma.sql`account_id`): Prisma.Sql =>
  isId(ref)
    ? Prisma.sql`${column} = ${ref}::uuid`
    : Prisma.sql`${column} = (SELECT id FROM accounts WHERE handle = ${ref.toLowerCase()})`;
