import type { Database } from '@ingest/db';
import { CHALLENGES, unauthenticated } from './challenges.js';

export interface TokenAccount {
  id: string;
  role: string;
}

/**
 * The account a verified token was signed for, read on every request rather than from
 * the token: a token outlives a deletion, and taking the admin role away must take
 * effect at once. An account that no longer exists is the caller's problem: 401.
 */
export async function accountOfToken(db: Database, accountId: string): Promise<TokenAccount> {
  const account = await db.prisma.account.findUnique({
    where: { id: accountId },
    select: { id: true, role: true },
  });
  if (account === null) {
    throw unauthenticated('The account of this token no longer exists', CHALLENGES.bearer);
  }
  return account;
}
