import type { Queue } from 'bullmq';
import type pg from 'pg';
import { removeJobs, type RemovedJobs } from './queue-jobs.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Removes the webhook-deliveries jobs whose delivery row is gone. A delivery's job holds its
 * id alone (the job id too), not its account, so the erased account's jobs are found by
 * their deleted rows. A job is queued only after its delivery has committed, so a job
 * without a row is one whose delivery was deleted: by this erasure, or by message
 * retention or an endpoint's removal, whose finished jobs nothing reads again.
 */
export async function eraseDeliveryJobs(pool: pg.Pool, queue: Queue): Promise<RemovedJobs> {
  return removeJobs(queue, async (page) => {
    const ids = page.flatMap((job) => (job.id !== undefined && UUID.test(job.id) ? [job.id] : []));
    const { rows } = await pool.query<{ id: string }>(
      'SELECT id FROM webhook_deliveries WHERE id = ANY($1::uuid[])',
      [ids],
    );
    const kept = new Set(rows.map((row) => row.id));
    return page.filter((job) => job.id !== undefined && UUID.test(job.id) && !kept.has(job.id));
  });
}
