/**
 * The seconds a client asks to wait with `Prefer: wait=N` (RFC 7240), capped at `max`;
 * 0 when it does not ask. Other preferences in the header are ignored.
 */
export function preferredWaitSeconds(header: string | string[] | undefined, max: number): number {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  for (const value of values) {
    for (const preference of value.split(',')) {
      const match = /^\s*wait\s*=\s*"?(\d{1,6})"?\s*(?:;.*)?$/i.exec(preference);
      if (match?.[1] !== undefined) return Math.min(Number(match[1]), max);
    }
  }
  return 0;
}
