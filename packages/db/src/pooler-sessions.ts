import type { Database } from './client.js';

interface Log {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/**
 * Says at start what sessions get through a transaction-mode pooler, where the service
 * cannot send its own settings: the database's defaults. A statement timeout of 0 there
 * means none, which an operator should know before a stuck statement holds a connection.
 * A database that cannot be read now is left to the readiness check.
 */
export async function reportPoolerSessions(db: Database, log: Log): Promise<void> {
  if (!db.throughPooler) return;
  try {
    const { rows } = await db.pool.query<{ statement_timeout: string; jit: string }>(
      "SELECT current_setting('statement_timeout') AS statement_timeout, current_setting('jit') AS jit",
    );
    const settings = { statementTimeout: rows[0]?.statement_timeout, jit: rows[0]?.jit };
    log.info(
      settings,
      'database through a pooler: statements are sent unnamed, and sessions have the database defaults',
    );
    if (settings.statementTimeout === '0') {
      log.warn(
        settings,
        'no statement timeout through the pooler: set one on the database or role (docs/operations.md)',
      );
    }
  } catch (error) {
    log.warn({ err: error }, 'could not read the session settings through the pooler');
  }
}
