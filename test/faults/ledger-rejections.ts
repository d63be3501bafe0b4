// Invalid events: each must be answered 400 VALIDATION_FAILED naming its receipt, be
// recorded as `rejected`, and never be applied. A refused request does not use up its
// Idempotency-Key, so a retry after a lost answer may record a second rejected row, but
// never more rows than requests.
import type { LedgerSnapshot } from './ledger-queries.js';
import { canonical, type LedgerReport } from './ledger-report.js';
import type { SentEvent } from './load-generator.js';

export function checkRejections(
  snapshot: LedgerSnapshot,
  sent: SentEvent[],
  report: LedgerReport,
): void {
  const rejectedRows = snapshot.rows.filter((row) => row.status === 'rejected');
  const claimed = new Set<string>();
  for (const event of sent.filter((candidate) => candidate.planned.invalid)) {
    const { planned } = event;
    const what = `invalid ${planned.event} ${planned.slug} key ${planned.idempotencyKey}`;
    const body = canonical({ event: planned.event, data: planned.data });
    const rows = rejectedRows.filter((row) => canonical(row.payload) === body);
    const requests = event.deliveries.reduce((sum, delivery) => sum + delivery.tries, 0);
    let ok = true;
    for (const delivery of event.deliveries) {
      if (delivery.status !== 400 || delivery.code !== 'VALIDATION_FAILED') {
        ok = false;
        report.mismatches.push(
          `${what} was answered ${delivery.outcome} ${delivery.detail ?? delivery.status}`,
        );
      } else if (!rows.some((row) => row.id === delivery.rejectedId)) {
        ok = false;
        report.mismatches.push(
          `${what}: its 400 names ${delivery.rejectedId}, which is not a rejected row`,
        );
      }
    }
    if (rows.length > requests) {
      ok = false;
      report.duplicated.push(`${what} is recorded ${rows.length} times for ${requests} requests`);
    }
    for (const row of rows) {
      claimed.add(row.id);
      if (row.errorCode !== 'VALIDATION_FAILED') {
        ok = false;
        report.mismatches.push(`${what}: rejected row ${row.id} says ${row.errorCode}`);
      }
    }
    if (ok) report.rejected += 1;
  }
  for (const row of rejectedRows) {
    if (!claimed.has(row.id)) report.mismatches.push(`rejected row ${row.id} matches nothing sent`);
  }
}
