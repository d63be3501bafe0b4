import type { Prisma } from '@ingest/db';

/**
 * The transaction processors write in: the apply batcher's, which also records the
 * events' outcomes. A file of its own so that the catalog and the modules it names
 * (categories, article rows) can all import it without importing each other.
 */
export type Tx = Prisma.TransactionClient;
