import { maintainPartitions, type Archiver } from '@ingest/event-log';
import type { WorkerDeps } from './deps.js';
import { repeatEvery, type Repeating } from './repeat.js';

/**
 * At start and every EVENT_LOG_MAINTENANCE_INTERVAL_MS: make the event log's partitions
 * for the coming week, drop (after archiving, when EVENT_LOG_ARCHIVE_DIR is set) those
 * past the longest retention in force, EVENT_LOG_RETENTION_DAYS or an account's own
 * (EVENT_LOG_DROPS_PER_ROUND of them a round, the oldest first), list the slugs of those
 * that closed, and delete the finished events of accounts that keep theirs less long
 * (EVENT_LOG_DELETES_PER_ROUND a round). Every worker runs it; an advisory lock lets one
 * at a time do the work and the others skip the round. A failed round is logged and
 * tried again.
 */
export function startPartitionUpkeep(deps: WorkerDeps, archive?: Archiver): Repeating {
  const { eventLog, worker } = deps.config;

  const round = async () => {
    try {
      const done = await maintainPartitions(deps.db.direct, {
        interval: eventLog.interval,
        retentionDays: eventLog.retentionDays,
        retentionBounds: eventLog.retentionBounds,
        maxDrops: worker.eventLogDropsPerRound,
        maxExpiredEvents: worker.eventLogDeletesPerRound,
        ...(archive === undefined ? {} : { archive }),
      });
      if (done === undefined) return;
      const { created, dropped, deferred, summarized, expired } = done;
      if (created.length > 0 || dropped.length > 0 || summarized.length > 0) {
        deps.logger.info(
          {
            created,
            dropped,
            deferred,
            summarized,
            longestRetentionDays: done.longestRetentionDays,
          },
          'event log partitions made, dropped and their slugs listed',
        );
      }
      if (expired.events > 0) {
        deps.logger.info(
          { ...expired, longestRetentionDays: done.longestRetentionDays },
          'events past their account retention deleted',
        );
      }
      for (const held of done.held) {
        deps.logger.warn(
          { partition: held.name, unfinished: held.unfinished },
          `kept: ${held.reason}`,
        );
      }
    } catch (error) {
      deps.logger.warn({ err: error }, 'event log partition upkeep failed; will try again');
    }
  };
  return repeatEvery(worker.eventLogMaintenanceIntervalMs, round, { now: true });
}
