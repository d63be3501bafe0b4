import { AppError, type AccountErasure } from '@ingest/contracts';
import { startErasure, type ErasureRequest } from '@ingest/erasure';
import type { ApiDeps } from '../deps.js';
import { accountByRef } from './admin/account-ref.js';
import { loginWithPassword } from './accounts.js';

type Deps = Pick<ApiDeps, 'db' | 'apiKeys'>;

interface ErasureRow {
  id: string;
  account_id: string | null;
  requested_by: 'operator' | 'self';
  operator_id: string | null;
  started_at: Date;
  finished_at: Date | null;
  counts: Record<string, number>;
  archives: Record<string, number>;
}

const present = (row: ErasureRow): AccountErasure => ({
  id: row.id,
  accountId: row.account_id,
  requestedBy: row.requested_by,
  operatorId: row.operator_id,
  startedAt: row.started_at.toISOString(),
  finishedAt: row.finished_at?.toISOString() ?? null,
  counts: row.counts,
  archives: row.archives,
});

/** An erasure's record, as it stands; 404 when there is none of that id. */
export async function erasure(deps: Pick<Deps, 'db'>, id: string): Promise<AccountErasure> {
  const { rows } = await deps.db.pool.query<ErasureRow>(
    'SELECT * FROM account_erasures WHERE id = $1',
    [id],
  );
  const row = rows[0];
  if (row === undefined) throw new AppError('NOT_FOUND', 'No erasure of that id');
  return present(row);
}

/** Starts erasing `accountId`, or answers the erasure under way; 404 for no such account. */
async function erase(
  deps: Deps,
  request: ErasureRequest,
  keyHashes: Uint8Array[],
): Promise<AccountErasure> {
  const started = await startErasure(deps.db.pool, request);
  if (started === undefined) throw new AppError('NOT_FOUND', 'No account of that id or handle');
  // This instance refuses its keys at once; the others once their cache lapses.
  for (const keyHash of keyHashes) deps.apiKeys.forget(keyHash);
  return erasure(deps, started.id);
}

const keyHashesOf = async (deps: Deps, accountId: string) =>
  (await deps.db.prisma.apiKey.findMany({ where: { accountId }, select: { keyHash: true } })).map(
    (key) => key.keyHash,
  );

/** An operator erases the account `ref` names (an id or a handle). */
export async function eraseAccount(
  deps: Deps,
  ref: string,
  operatorId: string,
): Promise<AccountErasure> {
  const account = await deps.db.prisma.account.findUnique({
    where: accountByRef(ref),
    select: { id: true },
  });
  if (account === null) throw new AppError('NOT_FOUND', 'No account of that id or handle');
  return erase(
    deps,
    { accountId: account.id, requestedBy: 'operator', operatorId },
    await keyHashesOf(deps, account.id),
  );
}

/** An account erases itself: its password again, as at login (401 when it is wrong). */
export async function eraseOwnAccount(
  deps: Deps,
  accountId: string,
  password: string,
): Promise<AccountErasure> {
  const account = await deps.db.prisma.account.findUnique({
    where: { id: accountId },
    select: { email: true },
  });
  if (account === null) throw new AppError('NOT_FOUND', 'No account of that id or handle');
  await loginWithPassword(deps, { email: account.email, password });
  return erase(
    deps,
    { accountId, requestedBy: 'self', operatorId: null },
    await keyHashesOf(deps, accountId),
  );
}
