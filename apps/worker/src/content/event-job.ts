import { AppError, SECOND_MS } from '@ingest/contracts';
import { databaseFailureOf } from '@ingest/db';
import {
  linesOf,
  recordDuplicate,
  recordFailure,
  type Claim,
  type EventRow,
} from '@ingest/event-log';
import { eventAttributes, inSpan } from '@ingest/observability';
import { context } from '@opentelemetry/api';
import {
  ContentJobDataSchema,
  failureForQueue,
  isLastAttempt,
  isPermanent,
  type ContentJobData,
} from '@ingest/queue';
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import { WaitingForSlot, withAccountSlot } from './account-cap.js';
import { createApplyBatcher, type Applied, type ApplyBatcher } from './apply-batcher.js';
import { createClaimBatcher, type ClaimBatcher } from './claim-batcher.js';
import type { WorkerDeps } from '../deps.js';
import { eventErrorOf } from './failures.js';
import { lagSecondsOf, type JobOutcome } from '../metrics.js';
import { createWaker, type Waker } from './order-wake.js';
import { routeEvent } from './route-event.js';

interface Parts {
  claims: ClaimBatcher;
  changes: ApplyBatcher;
  waker: Waker;
}

export interface EventJobProcessor {
  (job: Job<ContentJobData>, token?: string): Promise<void>;
  /** Resolves once the wakes its jobs started are done (for shutdown). */
  drain(): Promise<void>;
}

/**
 * The BullMQ processor of content jobs: route by event name and apply the change, in
 * acceptance order per line (an account's events about one slug), exactly once.
 *
 * 1. On a job's first delivery, read the event: if it is queued and first in its lines,
 *    step 3 claims it, applies it and records its attempt in one commit (applyRead). Any
 *    other delivery, or a first whose apply did not go through, claims the event: reads
 *    it and, in the same statement, opens an attempt (status `processing`) unless an
 *    earlier event of one of its lines is unfinished. That attempt commits on its own, so
 *    a worker dying mid-change leaves it on the receipt and a change that kills every
 *    worker taking it fails its event once the attempts run out.
 * 2. Blocked: park the job in BullMQ's delayed set until whoever finishes the earlier
 *    event wakes it (order-wake.ts); WORKER_LOCK_DURATION_MS is only the safety net.
 * 3. In one transaction (shared with other jobs ready at the same moment, apply-batcher.ts):
 *    lock the event, check it is still ours, apply its change and those of its run,
 *    record the outcomes. A second run of the same job finds the event finished and
 *    changes nothing, so BullMQ's at-least-once delivery applies each event once.
 * 4. A failure the event causes (AppError) fails it at once; any other failure is
 *    retried with back-off until the attempts run out. Either way, once the event is
 *    finished, the next in its lines is woken.
 * 5. While the database is unreachable, the job is handed back (not an attempt) and the
 *    worker takes no jobs for a moment (`pauseForDatabaseOutage`).
 */
export function createEventJobProcessor(
  deps: WorkerDeps,
  pauseForDatabaseOutage: () => Promise<void>,
): EventJobProcessor {
  const waker = createWaker(deps);
  const parts: Parts = {
    claims: createClaimBatcher(deps),
    changes: createApplyBatcher(deps, waker),
    waker,
  };
  const processEventJob = async (job: Job<ContentJobData>, token?: string): Promise<void> => {
    const started = performance.now();
    const record = (outcome: JobOutcome) => {
      deps.metrics.jobsProcessed.inc({ event: job.name, outcome });
      deps.metrics.processingSeconds.observe(
        { event: job.name },
        (performance.now() - started) / SECOND_MS,
      );
    };
    try {
      record(await withAccountSlot(deps, job, token, () => runEventJob(deps, parts, job, token)));
    } catch (error) {
      if (databaseFailureOf(error) !== 'unreachable') {
        record(outcomeOfFailure(error, job));
        throw error;
      }
      record('handed_back');
      deps.logger.warn(
        { eventId: job.data.eventId, requestId: job.data.requestId, err: error },
        'database unreachable: handing the job back and pausing',
      );
      await pauseForDatabaseOutage();
      throw Worker.RateLimitError();
    }
  };
  return Object.assign(processEventJob, { drain: () => waker.drain() });
}

function outcomeOfFailure(error: unknown, job: Job): JobOutcome {
  if (error instanceof WaitingForSlot) return 'waiting_for_slot';
  if (error instanceof DelayedError) return 'waiting_for_order';
  if (error instanceof UnrecoverableError) return 'failed';
  return isLastAttempt(job) ? 'failed' : 'retried';
}

async function runEventJob(
  deps: WorkerDeps,
  parts: Parts,
  job: Job<ContentJobData>,
  token: string | undefined,
): Promise<JobOutcome> {
  const parsed = ContentJobDataSchema.safeParse(job.data);
  if (!parsed.success) {
    throw new UnrecoverableError(`job ${job.id} carries no valid event reference`);
  }
  const { eventId, accountId } = parsed.data;
  if (isFirstDelivery(job)) {
    const read = await inSpan('event.read', { 'ingest.event.id': eventId }, () =>
      parts.claims.read(eventId, accountId),
    );
    if (read.outcome === 'ready') {
      const outcome = await applyRead(deps, parts, job, read.row);
      if (outcome !== undefined) return outcome;
    } else if (read.outcome !== 'started') {
      return settleUnclaimed(deps, parts, job, token, read);
    }
  }
  const claim = await inSpan('event.claim', { 'ingest.event.id': eventId }, () =>
    parts.claims.claim(eventId, accountId),
  );
  if (claim.outcome !== 'claimed') return settleUnclaimed(deps, parts, job, token, claim);
  const { row, attempt } = claim;
  const fields = fieldsOf(row, attempt);
  let applied: Applied | undefined;
  try {
    if (row.event !== job.name) {
      throw new AppError('UNKNOWN_EVENT', `The job's name does not match the recorded event`);
    }
    const routed = routeEvent(row, deps.config.content);
    applied = await inSpan('event.apply', eventAttributes(row), () =>
      parts.changes.apply({ row, attempt, routed, trace: context.active() }),
    );
  } catch (error) {
    // No database, no attempt: the caller hands the job back without recording one.
    if (databaseFailureOf(error) === 'unreachable') throw error;
    await failAttempt(deps, parts, job, row, attempt, error);
    throw failureForQueue(error);
  }
  if (applied === undefined) {
    await inSpan('event.record_outcome', { 'ingest.outcome': 'duplicate' }, () =>
      recordDuplicate(deps.db.pool, eventId, attempt),
    );
    deps.logger.info(fields, 'event was finished by another run; this one changed nothing');
    return 'duplicate';
  }
  return reportApplied(deps, row, attempt, applied);
}

/**
 * A job taken for the first time: not parked, retried or stalled before. Its event is
 * only read, and claimed in the transaction that applies it (applyRead); every later
 * delivery claims it first, so that a change that kills its worker is counted.
 */
const isFirstDelivery = (job: Job): boolean =>
  job.attemptsStarted <= 1 && job.attemptsMade === 0 && job.stalledCounter === 0;

/**
 * A first delivery's event, read and first in its lines, applied with its attempt
 * recorded in the same transaction: no commit of its own for the claim. Whatever else
 * happens (it no longer routes, its change throws, another run took it meanwhile)
 * changes nothing and answers undefined: the job then claims the event and goes the
 * careful way, which records the attempt and any failure as every later delivery does.
 */
async function applyRead(
  deps: WorkerDeps,
  parts: Parts,
  job: Job<ContentJobData>,
  row: EventRow,
): Promise<JobOutcome | undefined> {
  if (row.event !== job.name) return undefined;
  let applied: Applied | undefined;
  try {
    const routed = routeEvent(row, deps.config.content);
    applied = await inSpan('event.apply', eventAttributes(row), () =>
      parts.changes.apply({ row, attempt: null, routed, trace: context.active() }),
    );
  } catch (error) {
    if (databaseFailureOf(error) === 'unreachable') throw error;
    deps.logger.debug(
      { ...fieldsOf(row, null), err: error },
      'applying on first delivery failed; claiming the event',
    );
    return undefined;
  }
  return applied === undefined ? undefined : reportApplied(deps, row, null, applied);
}

/** A claim (or read) that gave this run nothing to apply. */
function settleUnclaimed(
  deps: WorkerDeps,
  parts: Parts,
  job: Job<ContentJobData>,
  token: string | undefined,
  claim: Claim,
): Promise<JobOutcome> | JobOutcome {
  switch (claim.outcome) {
    case 'missing':
      // Another deployment's job under this prefix (start-up refuses a prefix another
      // deployment claimed, so this is rare): said loudly, and failed rather than completed,
      // so that it stays in the failed set where its owner's reconciler finds and retries it.
      deps.logger.error(
        {
          eventId: job.data.eventId,
          requestId: job.data.requestId,
          keyPrefix: deps.config.redis.keyPrefix,
        },
        'job for an event this database does not hold: another deployment shares this REDIS_KEY_PREFIX?',
      );
      throw new UnrecoverableError(`event ${job.data.eventId} is not recorded`);
    case 'finished':
      deps.logger.debug(
        { eventId: job.data.eventId, requestId: job.data.requestId },
        'event already finished; nothing to do',
      );
      return 'duplicate';
    case 'blocked':
      return park(deps, parts, job, token);
    default:
      throw new Error(`a claim of event ${job.data.eventId} answered ${claim.outcome}`);
  }
}

/**
 * Parks the job until the earlier event of its line finishes; if whoever should wake it dies
 * first, it wakes itself after WORKER_LOCK_DURATION_MS. Then it asks again whether it still
 * waits: the earlier event may have finished in between, its finisher looking for the next
 * in line before this job was parked, so it would not have been woken.
 */
async function park(
  deps: WorkerDeps,
  parts: Parts,
  job: Job<ContentJobData>,
  token: string | undefined,
): Promise<never> {
  await job.moveToDelayed(Date.now() + deps.config.worker.lockDurationMs, token);
  if (!(await parts.claims.stillBlocked(job.data.eventId))) {
    await job.promote().catch(() => undefined); // someone else promoted it first
  }
  throw new DelayedError('waiting for an earlier event of its line');
}

async function failAttempt(
  deps: WorkerDeps,
  parts: Parts,
  job: Job<ContentJobData>,
  row: EventRow,
  attempt: number,
  error: unknown,
): Promise<void> {
  const permanent = isPermanent(error);
  const final = permanent || isLastAttempt(job);
  const eventError = eventErrorOf(error, attempt, final);
  const fields = fieldsOf(row, attempt);
  if (final) countFailed(deps, row, eventError.code);
  if (permanent) deps.logger.info({ ...fields, code: eventError.code }, 'event failed');
  else
    deps.logger.warn(
      { ...fields, err: error, final },
      final ? 'event failed: out of attempts' : 'attempt failed; will retry',
    );
  const left = await inSpan('event.record_outcome', { 'ingest.outcome': 'failed' }, () =>
    recordFailure(deps.db.pool, {
      eventId: row.id,
      attempt,
      error: eventError,
      final,
      notifyOnFinish: row.notifyOnFinish,
    }),
  );
  if (left) parts.waker.wake(linesOf(row));
}

/** Counts an event failed for good: by account in the minute history, by code in Prometheus. */
function countFailed(deps: WorkerDeps, row: EventRow, code: string): void {
  deps.counters.failed.increment(1, row.accountId);
  deps.metrics.eventsFailed.inc({ code });
}

/**
 * What every log line about an event carries. Passed to each call rather than bound in a
 * child logger: an event is logged once or twice, and a child per event costs more.
 */
const fieldsOf = (row: EventRow, attempt: number | null) => ({
  eventId: row.id,
  requestId: row.requestId,
  event: row.event,
  ...(attempt === null ? {} : { attempt }),
});

/**
 * Counts and logs the head's outcome and its run's, one line each; the head's failure
 * (recorded already, with the others' changes) fails its job.
 */
function reportApplied(
  deps: WorkerDeps,
  head: EventRow,
  attempt: number | null,
  applied: Applied,
): JobOutcome {
  const applies = [{ row: head, outcome: applied.outcome }, ...applied.followers];
  for (const { row, outcome } of applies) {
    const event = row.event ?? 'unknown';
    const inRun = row !== head;
    const fields = inRun ? { ...fieldsOf(row, null), inRunOf: head.id } : fieldsOf(row, attempt);
    // A follower is counted as its job's outcome would be: its own job will find it
    // finished. The head's is counted by its job.
    if (inRun) {
      deps.metrics.jobsProcessed.inc({ event, outcome: outcome.ok ? 'succeeded' : 'failed' });
    }
    if (!outcome.ok) {
      countFailed(deps, row, outcome.error.code);
      deps.logger.info(
        { ...fields, code: outcome.error.code },
        inRun ? 'event failed in the run of an earlier event' : 'event failed',
      );
      continue;
    }
    deps.counters.applied.increment(1, row.accountId);
    deps.metrics.lagSeconds.observe({ event }, lagSecondsOf(row));
    deps.logger.info(
      { ...fields, result: outcome.value },
      inRun ? 'event applied in the run of an earlier event' : 'event applied',
    );
  }
  if (!applied.outcome.ok) throw failureForQueue(applied.outcome.error);
  return 'succeeded';
}
