import { AppError, type EventDetail } from '@ingest/contracts';
import type { ApiDeps } from '../../deps.js';
import {
  OPERATOR_EVENT_COLUMNS,
  presentOperatorEvent,
  type OperatorEventRow,
} from './event-search.js';

type Deps = Pick<ApiDeps, 'db'>;

/** One event as an operator needs it: payload, every attempt and its error, who sent it. */
export async function eventDetail(deps: Deps, id: string): Promise<EventDetail> {
  const { prisma } = deps.db;
  const [row] = await prisma.$queryRaw<
    Array<OperatorEventRow & { payload: unknown; orderKeys: string[] }>
  >`
    SELECT ${OPERATOR_EVENT_COLUMNS}, payload, order_keys AS "orderKeys"
    FROM webhook_logs WHERE id = ${id}::uuid`;
  if (row === undefined) throw new AppError('NOT_FOUND', 'No event with this id');
  const [account, attempts] = await Promise.all([
    prisma.account.findUniqueOrThrow({
      where: { id: row.accountId },
      select: { id: true, handle: true, email: true },
    }),
    prisma.eventAttempt.findMany({ where: { eventId: id }, orderBy: { number: 'asc' } }),
  ]);
  return {
    ...presentOperatorEvent(row),
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
}
