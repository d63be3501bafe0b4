import { registerAccount, type RegisteredAccount } from './accounts.js';
import type { TestApi } from './test-api.js';

/** A registered account made an operator, as `pnpm admin:grant` does. */
export async function registerAdmin(api: TestApi): Promise<RegisteredAccount> {
  const account = await registerAccount(api);
  await api.deps.db.prisma.account.update({ where: { id: account.id }, data: { role: 'admin' } });
  return account;
}
