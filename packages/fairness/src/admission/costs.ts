/**
 * Places a request holds in admission control while it runs, unless its route says
 * otherwise: most hold a database connection from start to end, of which a process has few
 * (DATABASE_POOL_SIZE), so past a few dozen at once the rest only queue inside the pool,
 * where a quiet tenant would wait behind a busy one.
 */
export const DEFAULT_COST = 4;

/** Places a publish holds: publishes share group commits, so many at once cost little more than one. */
export const PUBLISH_COST = 1;
