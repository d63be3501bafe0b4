import { acquireSlot, releaseSlot } from '@ingest/fairness';
import { promoteJobs, type ContentJobData } from '@ingest/queue';
import { DelayedError, type Job } from 'bullmq';
import type { WorkerDeps } from '../deps.js';

/** A job parked until a slot of its account's cap frees: see withAccountSlot. */
export class WaitingForSlot extends DelayedError {
  constructor() {
    super('waiting for a slot of its account (maxInFlight)');
  }
}

type Deps = Pick<WorkerDeps, 'queues' | 'shares' | 'config' | 'logger'>;

/**
 * Runs `work` holding a slot of the job's account when the account has a cap on events in
 * flight (its `maxInFlight`, over every worker); runs it at once otherwise. With every
 * slot held, the job parks in BullMQ's delayed set, and whoever releases a slot wakes the
 * oldest waiter; WORKER_LOCK_DURATION_MS is the safety net, as for a job parked behind
 * its line. A run that brings followers counts once: the cap is on jobs at work.
 */
export async function withAccountSlot<Outcome>(
  deps: Deps,
  job: Job<ContentJobData>,
  token: string | undefined,
  work: () => Promise<Outcome>,
): Promise<Outcome> {
  const { accountId } = job.data;
  const cap = deps.shares.shareOf(accountId).maxInFlight;
  if (cap === null) return work();
  const slot = { accountId, cap };
  const held = await acquireSlot(deps.queues.of(accountId), {
    ...slot,
    jobId: job.id ?? job.data.eventId,
    lapseMs: deps.config.worker.lockDurationMs,
  });
  if (!held) {
    await job.moveToDelayed(Date.now() + deps.config.worker.lockDurationMs, token);
    // A slot released between the attempt and the parking found no one parked to wake.
    await wake(deps, slot, null);
    throw new WaitingForSlot();
  }
  try {
    return await work();
  } finally {
    await wake(deps, slot, job.id ?? job.data.eventId);
  }
}

/** Releases `jobId`'s slot (if any) and wakes the waiters the free slots can take. */
async function wake(
  deps: Deps,
  slot: { accountId: string; cap: number },
  jobId: string | null,
): Promise<void> {
  try {
    const queue = deps.queues.of(slot.accountId);
    const waiters = await releaseSlot(queue, { ...slot, jobId });
    await promoteJobs(queue, waiters);
  } catch (error) {
    // Its slot lapses after WORKER_LOCK_DURATION_MS; the waiters wake then by themselves.
    deps.logger.warn(
      { err: error, accountId: slot.accountId },
      'could not release a slot of the account; it lapses by itself',
    );
  }
}
