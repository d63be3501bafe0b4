import { redactUrlPassword } from '@ingest/config';
import { withOneClient } from './reachability.js';

const UNDEFINED_TABLE = '42P01';

/**
 * This database's deployment id (a random UUID), made by the first start that asks.
 * Starts racing to make it agree: the one-row table takes one INSERT, and the SELECT after
 * it sees whichever committed. Rejects with a one-line message when it cannot be read.
 */
export async function readDeploymentId(url: string, timeoutMs = 3_000): Promise<string> {
  try {
    return await withOneClient(url, timeoutMs, async (client) => {
      await client.query('INSERT INTO deployment DEFAULT VALUES ON CONFLICT DO NOTHING');
      const { rows } = await client.query<{ id: string }>('SELECT id FROM deployment');
      const [row] = rows;
      if (row === undefined) throw new Error('the deployment table is empty');
      return row.id;
    });
  } catch (error) {
    const where = redactUrlPassword(url);
    if ((error as { code?: string }).code === UNDEFINED_TABLE) {
      throw new Error(
        `PostgreSQL at ${where} has no deployment table; apply the migrations with \`pnpm db:migrate\``,
      );
    }
    throw new Error(
      `PostgreSQL at ${where}: could not read the deployment id (${(error as Error).message})`,
    );
  }
}
