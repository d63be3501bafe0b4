import pg from 'pg';

const DUPLICATE_DATABASE = '42P04';

/** The same server and credentials, on the `postgres` maintenance database. */
export function maintenanceDatabaseUrl(connectionString: string): string {
  const url = new URL(connectionString);
  url.pathname = '/postgres';
  return url.toString();
}

/**
 * Creates the database named in `connectionString` if it does not exist, connecting
 * to the server's `postgres` maintenance database with the same credentials.
 * Returns true when it created one.
 */
export async function ensureDatabase(connectionString: string): Promise<boolean> {
  const url = new URL(connectionString);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (database === '') throw new Error('DATABASE_URL names no database');
  const client = new pg.Client({ connectionString: maintenanceDatabaseUrl(connectionString) });
  await client.connect();
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (existing.rowCount !== 0) return false;
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
    return true;
  } catch (error) {
    // Another process created it between our check and our CREATE: that is fine.
    if ((error as { code?: string }).code === DUPLICATE_DATABASE) return false;
    throw error;
  } finally {
    await client.end();
  }
}
