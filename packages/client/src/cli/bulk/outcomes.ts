import type { IngestClient } from '../../client.js';
import type { Receipt } from '../../types.js';

/** What became of the events a run had accepted, once the workers applied them. */
export interface Outcomes {
  succeeded: Array<{ line: number; id: string }>;
  /** Accepted, then failed in the worker: each with its line and error. */
  failed: Array<{ line: number; id: string; code: string; message: string }>;
  /** Still queued or processing when the wait ended. */
  pending: number;
}

const PAGE = 100;

/**
 * Waits until none of `accepted` (event id to line) is queued or processing, or until
 * `timeoutMs`, then reads which of them succeeded and which failed. It reads the account's
 * receipts of one status a page of a hundred at a time, newest first, back to the oldest
 * of them (a call per hundred events, where reading each receipt would be one an event),
 * and in between waits on one receipt.
 */
export async function waitForOutcomes(
  client: IngestClient,
  accepted: Map<string, { line: number; receivedAt: string }>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Outcomes> {
  let oldest = Infinity;
  for (const { receivedAt } of accepted.values()) oldest = Math.min(oldest, Date.parse(receivedAt));
  const ours = async (status: Receipt['status']): Promise<Receipt[]> => {
    const found: Receipt[] = [];
    for await (const receipt of client.listReceipts({ status, limit: PAGE }, { signal })) {
      if (Date.parse(receipt.receivedAt) < oldest) break;
      if (accepted.has(receipt.id)) found.push(receipt);
    }
    return found;
  };
  const unfinished = async () => [...(await ours('queued')), ...(await ours('processing'))];

  if (accepted.size === 0) return { succeeded: [], failed: [], pending: 0 };
  const deadline = Date.now() + timeoutMs;
  // Wait on the newest unfinished event (likely the last to finish) with its receipt
  // alone, then list again: a listing pass or two, however long the backlog takes.
  for (let left = await unfinished(); left.length > 0; left = await unfinished()) {
    const remainingMs = deadline - Date.now();
    if (remainingMs <= 0 || signal.aborted) break;
    const settled = await client
      .waitForOutcome(left[0]!.id, { timeoutMs: remainingMs, signal })
      .then(() => true)
      .catch((error: unknown) => {
        if ((error as { code?: string }).code === 'REQUEST_TIMEOUT' || signal.aborted) return false;
        throw error;
      });
    if (!settled) break;
  }
  // Counted from the final statuses, which do not change again: an event that moved
  // between the two listings above is not taken for finished.
  const succeeded = await ours('succeeded');
  const failed = await ours('failed');
  return {
    succeeded: succeeded.map(({ id }) => ({ line: accepted.get(id)!.line, id })),
    failed: failed.map((receipt) => ({
      line: accepted.get(receipt.id)!.line,
      id: receipt.id,
      code: receipt.error?.code ?? 'PROCESSING_FAILED',
      message: receipt.error?.message ?? '',
    })),
    pending: accepted.size - succeeded.length - failed.length,
  };
}
