import type { IngestClient } from '../../client.js';
import type { Receipt } from '../../types.js';

/** What became of the file's accepted events: this run's and earlier runs'. */
export interface Outcomes {
  /** Applied. */
  succeeded: number;
  /** Accepted, then failed in the worker. */
  failed: number;
  failedByCode: Record<string, number>;
  /** Of `failed`, those this run learned of: an earlier run told of the others. */
  failedNow: number;
  /** Still queued or processing when the wait ended. */
  pending: number;
}

/** What became of the events waited for, by id. */
export interface Waited {
  succeeded: string[];
  failed: Array<{ id: string; code: string; message: string }>;
  pending: number;
}

const PAGE = 100;

/**
 * Waits until none of `accepted` (event ids, each with when the service received it) is
 * queued or processing, or until `timeoutMs`, then reads which of them succeeded and which
 * failed. It reads the account's receipts of one status a page of a hundred at a time,
 * newest first, back to the oldest of them (a call per hundred events, where reading each
 * receipt would be one an event), and in between waits on one receipt. An event whose
 * receivedAt is not known (a results file of an older CLI) has its receipt read first.
 */
export async function waitForOutcomes(
  client: IngestClient,
  accepted: Map<string, { receivedAt?: string }>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Waited> {
  if (accepted.size === 0) return { succeeded: [], failed: [], pending: 0 };
  let oldest = Infinity;
  for (const [id, { receivedAt }] of accepted) {
    const received = receivedAt ?? (await client.getReceipt(id, { signal })).receivedAt;
    oldest = Math.min(oldest, Date.parse(received));
  }
  const ours = async (status: Receipt['status']): Promise<Receipt[]> => {
    const found: Receipt[] = [];
    for await (const receipt of client.listReceipts({ status, limit: PAGE }, { signal })) {
      if (Date.parse(receipt.receivedAt) < oldest) break;
      if (accepted.has(receipt.id)) found.push(receipt);
    }
    return found;
  };
  const unfinished = async () => [...(await ours('queued')), ...(await ours('processing'))];

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
    succeeded: succeeded.map(({ id }) => id),
    failed: failed.map((receipt) => ({
      id: receipt.id,
      code: receipt.error?.code ?? 'PROCESSING_FAILED',
      message: receipt.error?.message ?? '',
    })),
    pending: accepted.size - succeeded.length - failed.length,
  };
}
