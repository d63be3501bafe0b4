import { AppError, type EventDetail } from '@ingest/contracts';
import type { ApiDeps } from '../../deps.js';
import { inOneSnapshot } from '../one-snapshot.js';
import {
  OPERATOR_EVENT_COLUMNS,
  presentOperatorEvent,
  type OperatorEventRow,
} from './event-search.js';

type Deps = Pick<ApiDeps, 'db'>;

/** One event as an operator needs it: payload, every attempt and its error, who sent it. */
export function eventDetail(deps: Deps, id: string): Promise<EventDetail> {
  // Four statements in one snapshot: an account removed between them must not fail the read.
  return inOneSnapshot(deps, async (tx) => {
    const [row] = await tx.$queryRaw<
      Array<OperatorEventRow & { payload: unknown; orderKeys: string[] }>
    >`
      SELECT ${OPERATOR_EVENT_COLUMNS}, payload, order_keys AS "orderKeys"
      FROM webhook_logs WHERE id = ${id}::uuid`;
    if (row === undefined) throw new AppError('NOT_FOUND', 'No event with this id');
    const account = await tx.account.findUniqueOrThrow({
      where: { id: row.accountId },
      select: { id: true, handle: true, email: true },
    });
    const key =
      row.apiKeyId === null
        ? null
        : await tx.apiKey.findUnique({ where: { id: row.apiKeyId }, select: { name: true } });
    const attempts = await tx.eventAttempt.findMany({
      where: { eventId: id },
      orderBy: { number: 'asc' },
    });
    return {
      ...presentOperatorEvent(row, {
        handles: new Map([[account.id, account.handle]]),
        keyNames: new Map(key === null || row.apiKeyId === null ? [] : [[row.apiKeyId, key.name]]),
      }),
      payload: row.payload,
      orderKeys: row.orderKeys,
      account,
      attemptsLog: attempts.map((attempt) => ({
        number: attempt.number,
        startedAt: attempt.startedAt.toISOString(),
        finishedAt: attempt.finishedAt?.toISOString() ?? null,
        outcome: attempt.outcome,
        error: (attempt.error ?? null) as EventDetail['attemptsLog'][number]['error'],
      })),
    };
  });
}
