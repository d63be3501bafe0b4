import type { Account as AccountDto } from '@ingest/contracts';
import type { Account } from '@ingest/db';

/** The public face of an account: never its password hash or role. */
export const presentAccount = (account: Account): AccountDto => ({
  id: account.id,
  email: account.email,
  handle: account.handle,
  name: account.name,
  createdAt: account.createdAt.toISOString(),
});
