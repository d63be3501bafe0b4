import { redactUrlPassword } from '@ingest/config';
import pg from 'pg';

const UNDEFINED_DATABASE = '3D000';

/**
 * Resolves when PostgreSQL answers `SELECT 1` within `timeoutMs`; otherwise rejects with
 * an Error whose message is one line saying what is wrong and how to fix it.
 */
export async function checkDatabase(url: string, timeoutMs = 3_000): Promise<void> {
  try {
    await withOneClient(url, timeoutMs, (client) => client.query('SELECT 1'));
  } catch (error) {
    const code = (error as { code?: string }).code;
    const where = redactUrlPassword(url);
    if (code === UNDEFINED_DATABASE) {
      throw new Error(
        `PostgreSQL at ${where}: the database does not exist; create it with \`pnpm db:migrate\``,
      );
    }
    const reason = code ?? (error as Error).message;
    throw new Error(
      `PostgreSQL at ${where} is not answering (${reason}); start it (\`docker compose up -d postgres\`, or your system's service manager) or set DATABASE_URL`,
    );
  }
}

/**
 * Runs `work` on a connection of its own, every step bounded by `timeoutMs`, and closes
 * it: what start-up checks use, before any pool exists.
 */
export async function withOneClient<Result>(
  url: string,
  timeoutMs: number,
  work: (client: pg.Client) => Promise<Result>,
): Promise<Result> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}
