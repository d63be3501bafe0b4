import type { AppError } from '@ingest/contracts';
import type { Prisma } from '@ingest/db';

/**
 * Inside the transaction that creates one of an account's resources: locks the account's
 * row, so that concurrent creations count one after another and a burst cannot overrun
 * the quota, then throws `refusal()` when the account already holds `quota` of them.
 */
export async function holdWithinQuota(
  tx: Prisma.TransactionClient,
  accountId: string,
  quota: number,
  countHeld: () => Promise<number>,
  refusal: () => AppError,
): Promise<void> {
  await tx.$executeRaw`SELECT 1 FROM accounts WHERE id = ${accountId}::uuid FOR UPDATE`;
  if ((await countHeld()) >= quota) throw refusal();
}
