import { DEFAULT_ACCOUNT_SHARE, type AccountShare } from '@ingest/contracts';

export interface ShareBook {
  /** The account's share as last read: at most `refreshMs` old. */
  shareOf(accountId: string): AccountShare;
  /** Reads the shares again now (after an operator changed one here). */
  refresh(): Promise<void>;
  close(): void;
}

export interface ShareBookOptions {
  /** The accounts whose share is not the default (readCustomShares in @ingest/db). */
  load: () => Promise<ReadonlyMap<string, AccountShare>>;
  /** How often they are read again: an operator's change applies within it (5 s). */
  refreshMs?: number;
  onError: (error: unknown) => void;
}

/**
 * Every process keeps the few accounts with a share of their own in memory, read again
 * every `refreshMs`: the hot paths (accepting an event, taking a job) look a share up
 * without a round trip, and an operator's change reaches every process within that time.
 * A failed read keeps the last shares. Resolves once the first read is done (or failed).
 */
export async function createShareBook(options: ShareBookOptions): Promise<ShareBook> {
  let shares: ReadonlyMap<string, AccountShare> = new Map();
  async function refresh(): Promise<void> {
    try {
      shares = await options.load();
    } catch (error) {
      options.onError(error);
    }
  }
  await refresh();
  const timer = setInterval(() => void refresh(), options.refreshMs ?? 5_000);
  timer.unref();
  return {
    shareOf: (accountId) => shares.get(accountId) ?? DEFAULT_ACCOUNT_SHARE,
    refresh,
    close: () => clearInterval(timer),
  };
}
