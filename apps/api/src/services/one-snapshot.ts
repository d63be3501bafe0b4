import { Prisma } from '@ingest/db';
import type { ApiDeps } from '../deps.js';

/**
 * Runs a read of several statements against one snapshot of the database. Prisma reads a
 * row's relations (`include`, nested `select`) by a statement of its own, so a row whose
 * parent is removed in between comes back without it and the read fails; under
 * REPEATABLE READ every statement sees the database as the first one did.
 */
export function inOneSnapshot<T>(
  deps: Pick<ApiDeps, 'db'>,
  read: (tx: Prisma.TransactionClient) => Promise<T>,
): Promise<T> {
  return deps.db.prisma.$transaction(read, {
    isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead,
  });
}
