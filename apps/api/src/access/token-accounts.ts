import type { Database } from '@ingest/db';
import { CHALLENGES, unauthenticated } from './challenges.js';

export interface TokenAccount {
  id: string;
  role: string;
}

/**
 * The account a verified token was signed for, read on every request rather than from
 * the token: a token outlives a deletion, and taking the admin role away must take
 * effect at once. An account that no longer exists, or is being erased, is the caller's
 * problem: 401.
 */
export async function accountOfToken(db: Database, accountId: string): Promise<TokenAccount> {
  const { rows } = await db.pool.query<TokenAccount>({
    name: 'account-of-token',
    text: `SELECT a.id, a.role FROM accounts a
           WHERE a.id = $1 AND NOT EXISTS (
             SELECT 1 FROM account_erasures x WHERE x.account_id = a.id AND x.finished_at IS NULL)`,
    values: [accountId],
  });
  const account = rows[0];
  if (account === undefined) {
    throw unauthenticated(
      'The account of this token no longer exists, or is being erased',
      CHALLENGES.bearer,
    );
  }
  return account;
}
