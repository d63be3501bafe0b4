import { AppError, isAppError, isEventName } from '@ingest/contracts';
import { databaseFailureOf } from '@ingest/db';
import { ContentJobDataSchema, type ContentJobData } from '@ingest/queue';
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { WorkerDeps } from './deps.js';
import { createApplyBatcher, type ApplyBatcher } from './apply-batcher.js';
import { createClaimBatcher, type ClaimBatcher } from './claim-batcher.js';
import { recordDuplicate, recordFailure } from './event-log.js';
import { eventErrorOf } from './failures.js';
import type { JobOutcome } from './metrics.js';
import type { RoutedEvent } from './processors/index.js';

/** How long a job waits before looking again when an earlier event about its slug is unfinished. */
export function orderingDelayMs(timesWaited: number): number {
  const base = Math.min(25 * 2 ** Math.min(timesWaited, 6), 1_000);
  return base + Math.floor(Math.random() * base); // jitter, so waiters do not move in step
}

/**
 * The BullMQ processor of content jobs: route by event name and apply the change, in
 * acceptance order per slug, exactly once.
 *
 * 1. Read the event and, in the same statement, open an attempt (status `processing`),
 *    unless an earlier event about one of its slugs is unfinished: then go back to the
 *    queue for a moment (not an attempt). The attempt commits on its own, so a worker
 *    dying mid-change still leaves it on the receipt.
 * 2. In one transaction: lock the event row, check it is still ours, apply the change,
 *    record success. A second run of the same job finds the event finished and changes
 *    nothing, so BullMQ's at-least-once delivery applies each event once. Events ready
 *    at the same moment share that transaction (apply-batcher.ts).
 * 3. A failure the event causes (AppError) fails it at once; any other failure is
 *    retried with back-off until the attempts run out.
 * 4. While the database is unreachable, the job is handed back (not an attempt) and the
 *    worker takes no jobs for a moment (`pauseForDatabaseOutage`): nothing fails for
 *    want of a database, and work resumes by itself when it is back.
 */
export function createEventJobProcessor(
  deps: WorkerDeps,
  pauseForDatabaseOutage: () => Promise<void>,
) {
  const batchers = { claims: createClaimBatcher(deps), changes: createApplyBatcher(deps) };
  return async function processEventJob(job: Job<ContentJobData>, token?: string): Promise<void> {
    const started = performance.now();
    const record = (outcome: JobOutcome) => {
      deps.metrics.jobsProcessed.inc({ event: job.name, outcome });
      deps.metrics.processingSeconds.observe(
        { event: job.name },
        (performance.now() - started) / 1000,
      );
    };
    try {
      record(await applyEventJob(deps, batchers, job, token));
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
}

function outcomeOfFailure(error: unknown, job: Job): JobOutcome {
  if (error instanceof DelayedError) return 'waiting_for_order';
  if (error instanceof UnrecoverableError) return 'failed';
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1) ? 'failed' : 'retried';
}

async function applyEventJob(
  deps: WorkerDeps,
  batchers: { claims: ClaimBatcher; changes: ApplyBatcher },
  job: Job<ContentJobData>,
  token: string | undefined,
): Promise<JobOutcome> {
  const parsed = ContentJobDataSchema.safeParse(job.data);
  if (!parsed.success)
    throw new UnrecoverableError(`job ${job.id} carries no valid event reference`);
  const { eventId, requestId } = parsed.data;
  const log = deps.logger.child({
    eventId,
    requestId,
    event: job.name,
    attempt: job.attemptsMade + 1,
  });

  const loaded = await batchers.claims.claim(eventId);
  if (loaded === undefined) throw new UnrecoverableError(`event ${eventId} is not recorded`);
  if (loaded.status !== 'queued' && loaded.status !== 'processing') {
    log.debug({ status: loaded.status }, 'event already finished; nothing to do');
    return 'duplicate';
  }
  if (loaded.blocked) {
    await job.moveToDelayed(Date.now() + orderingDelayMs(job.attemptsStarted), token);
    throw new DelayedError('waiting for an earlier event about the same slug');
  }

  const attempt = loaded.attempt;
  if (attempt === null) return 'duplicate'; // finished by another run in the meantime
  const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);

  try {
    const event = loaded.event;
    if (!isEventName(event) || event !== job.name) {
      throw new AppError('UNKNOWN_EVENT', `The recorded event "${String(event)}" has no processor`);
    }
    const data = deps.schemas[event].safeParse(loaded.payload);
    if (!data.success) {
      throw new AppError(
        'VALIDATION_FAILED',
        'The payload no longer passes validation (were the limits changed?)',
      );
    }
    const applied = await batchers.changes.apply({
      eventId,
      attempt,
      notifyOnFinish: loaded.notifyOnFinish,
      routed: {
        event,
        context: {
          accountId: loaded.accountId,
          eventId,
          data: data.data,
          limits: deps.config.content,
          log,
        },
      } as RoutedEvent,
    });
    if (applied === undefined) {
      await recordDuplicate(deps.db, eventId, attempt);
      log.info('event was finished by another run; this one changed nothing');
      return 'duplicate';
    }
    deps.appliedCounter.increment();
    deps.metrics.lagSeconds.observe(
      { event: job.name },
      (Date.now() - loaded.receivedAt.getTime()) / 1000,
    );
    log.info({ result: applied }, 'event applied');
    return 'succeeded';
  } catch (error) {
    // No database, no attempt: the caller hands the job back without recording one.
    if (databaseFailureOf(error) === 'unreachable') throw error;
    const permanent = isAppError(error);
    const eventError = eventErrorOf(error, attempt, permanent || final);
    if (permanent) log.info({ code: eventError.code }, 'event failed');
    else
      log.warn(
        { err: error, final },
        final ? 'event failed: out of attempts' : 'attempt failed; will retry',
      );
    await recordFailure(
      deps.db,
      eventId,
      attempt,
      eventError,
      permanent || final,
      loaded.notifyOnFinish,
    );
    if (permanent) throw new UnrecoverableError(eventError.message);
    throw error;
  }
}
