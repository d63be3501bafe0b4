// The verdict on one scenario: what the bot was told (its 2xx answers) against what
// PostgreSQL holds, then every recorded event against a single in-order replay.
import { checkAttempts, compareContent } from './ledger-content.js';
import { checkRejections } from './ledger-rejections.js';
import type { LedgerSnapshot, LogRow } from './ledger-queries.js';
import { canonical, emptyReport, type LedgerReport } from './ledger-report.js';
import type { SentEvent } from './load-generator.js';
import { ReplayModel, type ModelOutcome } from './replay-model.js';

export type { LedgerReport } from './ledger-report.js';

const PERMANENT_FAILURES = new Set(['ARTICLE_NOT_FOUND', 'SLUG_TAKEN', 'VALIDATION_FAILED']);

const describe = (row: LogRow, sent: SentEvent | undefined) =>
  `event ${row.id} (${row.event ?? '?'} ${sent?.planned.slug ?? ''} key ${sent?.planned.idempotencyKey ?? '?'}, seq ${row.sequence})`;

const outcomeText = (outcome: ModelOutcome) =>
  outcome.status === 'succeeded' ? 'succeeded' : `failed ${outcome.code}`;

export function checkLedger(snapshot: LedgerSnapshot, sent: SentEvent[]): LedgerReport {
  const report = emptyReport();
  const sentById = checkAnswers(snapshot, sent, report);
  const sentByKey = new Map(sent.map((event) => [event.planned.idempotencyKey, event]));
  const keyByEvent = new Map([...snapshot.idempotencyKeys].map(([key, id]) => [id, key]));

  // Acceptance order is the `sequence` column: replay every recorded event in it.
  const model = new ReplayModel();
  for (const row of snapshot.rows) {
    let event = sentById.get(row.id);
    if (event === undefined) {
      const key = keyByEvent.get(row.id);
      const owner = key === undefined ? undefined : sentByKey.get(key);
      if (row.status === 'rejected') continue; // see checkRejections
      // Recorded while the bot never got an answer (it gave up): it still counts in the
      // replay. Any other extra row is a request recorded twice.
      if (owner !== undefined && !owner.accepted) event = owner;
      else report.duplicated.push(`${describe(row, owner)} was recorded but never answered`);
    }
    if (event !== undefined && canonical(row.payload) !== canonical(event.planned.data)) {
      report.mismatches.push(`${describe(row, event)} payload differs from what was sent`);
    }
    const expected = model.apply(
      row.event,
      (event?.planned.data ?? row.payload) as Record<string, unknown>,
    );
    judgeOutcome(row, expected, describe(row, event), event?.accepted === true, report);
    checkAttempts(snapshot, row, describe(row, event), report);
  }

  compareContent(model, snapshot, report);
  checkRejections(snapshot, sent, report);
  return report;
}

/** Each accepted event has exactly one id and a row; returns the events by id. */
function checkAnswers(
  snapshot: LedgerSnapshot,
  sent: SentEvent[],
  report: LedgerReport,
): Map<string, SentEvent> {
  const rowIds = new Set(snapshot.rows.map((row) => row.id));
  const sentById = new Map<string, SentEvent>();
  for (const event of sent) {
    const { planned } = event;
    const what = `${planned.event} ${planned.slug} key ${planned.idempotencyKey}`;
    if (planned.invalid) continue; // see checkRejections
    if (!event.accepted) {
      const last = event.deliveries.at(-1);
      report.unaccepted.push(
        `${what}: ${last?.outcome} after ${last?.tries} tries (${last?.detail})`,
      );
      continue;
    }
    report.accepted += 1;
    if (event.ids.size > 1) {
      report.duplicated.push(
        `${what} was answered with ${event.ids.size} event ids: ${[...event.ids].join(', ')}`,
      );
    }
    for (const id of event.ids) {
      sentById.set(id, event);
      if (!rowIds.has(id)) report.lost.push(`accepted ${what} (${id}) has no WebhookLog row`);
    }
    const [first, second] = event.deliveries;
    if (planned.duplicate === 'after' && second !== undefined && !second.replayed) {
      report.mismatches.push(`${what}: the re-send was not marked Idempotent-Replayed`);
    }
    // Both may be replays when an earlier try was recorded but its answer was lost (the
    // API died); when neither was retried, one of them must have recorded the event.
    const untried = (first?.tries ?? 0) + (second?.tries ?? 0) === 2;
    if (untried && first?.replayed === true && second?.replayed === true) {
      report.mismatches.push(`${what}: both concurrent sends claim to be replays`);
    }
  }
  return sentById;
}

function judgeOutcome(
  row: LogRow,
  expected: ModelOutcome,
  what: string,
  accepted: boolean,
  report: LedgerReport,
): void {
  if (row.status === 'queued' || row.status === 'processing') {
    report.lost.push(`${what} is still ${row.status}`);
    return;
  }
  if (row.status === 'failed' && !PERMANENT_FAILURES.has(row.errorCode ?? '')) {
    report.lost.push(`${what} failed with ${row.errorCode} (replay says ${outcomeText(expected)})`);
    return;
  }
  const actual: ModelOutcome =
    row.status === 'succeeded'
      ? { status: 'succeeded' }
      : { status: 'failed', code: row.errorCode ?? '?' };
  if (row.status === 'rejected' || outcomeText(expected) !== outcomeText(actual)) {
    report.mismatches.push(
      `${what}: replay says ${outcomeText(expected)}, row says ${row.status} ${row.errorCode ?? ''}`,
    );
    return;
  }
  if (!accepted) return;
  report.applied += 1;
  if (actual.status === 'succeeded') report.succeeded += 1;
  else report.failedAsExpected += 1;
}
