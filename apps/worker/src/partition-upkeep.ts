import { maintainPartitions, type Archiver } from '@ingest/event-log';
import type { WorkerDeps } from './deps.js';

export interface PartitionUpkeep {
  stop(): Promise<void>;
}

/**
 * At start and every EVENT_LOG_MAINTENANCE_INTERVAL_MS: make the event log's partitions
 * for the coming week and drop (after archiving, when EVENT_LOG_ARCHIVE_DIR is set) those
 * past the retention period. Every worker runs it; an advisory lock lets one at a time do
 * the work and the others skip the round. A failed round is logged and tried again.
 */
export function startPartitionUpkeep(deps: WorkerDeps, archive?: Archiver): PartitionUpkeep {
  const { eventLog } = deps.config;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const round = async () => {
    try {
      const done = await maintainPartitions(deps.db.pool, {
        interval: eventLog.interval,
        retentionDays: eventLog.retentionDays,
        ...(archive === undefined ? {} : { archive }),
      });
      if (done === undefined) return;
      if (done.created.length > 0 || done.dropped.length > 0) {
        deps.logger.info(
          { created: done.created, dropped: done.dropped },
          'event log partitions made and dropped',
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
  let running = round();
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = round().finally(schedule);
    }, deps.config.worker.eventLogMaintenanceIntervalMs);
  };
  void running.finally(schedule);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
