import {
  AppError,
  ERROR_CODES,
  isErrorCode,
  isFinalStatus,
  receiptPath,
  type Receipt,
} from '@ingest/contracts';
import type { ApiDeps } from '../deps.js';
import { getReceipt } from '../services/receipts.js';

type Deps = Pick<ApiDeps, 'db' | 'config' | 'waiter' | 'logger'>;

/**
 * Waits up to `seconds` for the event to finish (`Prefer: wait`) and returns its final
 * receipt, or undefined when it is not finished in time. The event is already recorded,
 * so a failure while waiting is logged and treated as "not in time": it must not turn
 * the 202 into an error, or the caller would send the event again.
 */
export async function awaitOutcome(
  deps: Deps,
  accountId: string,
  eventId: string,
  seconds: number,
): Promise<Receipt | undefined> {
  let receipt: Receipt | undefined;
  try {
    await deps.waiter.waitFor(eventId, seconds * 1000, async () => {
      receipt = await getReceipt(deps, accountId, eventId);
      return isFinalStatus(receipt.status);
    });
  } catch (error) {
    deps.logger.warn({ err: error, eventId }, 'waiting for the outcome failed; answering 202');
    return undefined;
  }
  return receipt !== undefined && isFinalStatus(receipt.status) ? receipt : undefined;
}

/** A final receipt is the answer to the request as it is, unless it failed: then its problem. */
export function throwUnlessSucceeded(receipt: Receipt): void {
  if (receipt.status === 'succeeded') return;
  const code = receipt.error?.code;
  throw new AppError(
    isErrorCode(code) ? code : 'PROCESSING_FAILED',
    receipt.error?.message ?? ERROR_CODES.PROCESSING_FAILED.title,
    {
      errors: receipt.error?.errors,
      extensions: {
        eventId: receipt.id,
        instance: receiptPath(receipt.id),
        ...(receipt.error?.currentVersion === undefined
          ? {}
          : { currentVersion: receipt.error.currentVersion }),
      },
    },
  );
}
