// What the ledger checks found in one scenario, and the helpers they share.

export interface LedgerReport {
  accepted: number;
  /** Accepted events that ended as the replay says: succeeded, or failed with its code. */
  applied: number;
  succeeded: number;
  failedAsExpected: number;
  /** Invalid events answered 400 and recorded as `rejected`, as they must be. */
  rejected: number;
  /** Accepted events that are not recorded, never finished, or failed for a transient reason. */
  lost: string[];
  /** One request recorded twice, or one event applied twice. */
  duplicated: string[];
  /** Anything else that differs from the replay: outcomes, content, links. */
  mismatches: string[];
  /** Events the bot never got a 2xx for (it gave up, or was refused). */
  unaccepted: string[];
}

export const emptyReport = (): LedgerReport => ({
  accepted: 0,
  applied: 0,
  succeeded: 0,
  failedAsExpected: 0,
  rejected: 0,
  lost: [],
  duplicated: [],
  mismatches: [],
  unaccepted: [],
});

/** JSON with sorted keys, so two equal payloads compare equal whatever their key order. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(record[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
