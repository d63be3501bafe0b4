import { z } from 'zod';

/** The tables of the event log, partitioned by a range of event ids (UUIDv7, so of time). */
export const EventLogTableSchema = z.enum(['webhook_logs', 'event_attempts']);
export type EventLogTableName = z.infer<typeof EventLogTableSchema>;

export const PARTITION_STATES = ['current', 'future', 'expiring', 'held', 'restored'] as const;
export type PartitionState = (typeof PARTITION_STATES)[number];

const UnfinishedCountsSchema = z
  .object({ queued: z.int().min(0), processing: z.int().min(0) })
  .meta({ id: 'UnfinishedCounts', description: 'Unfinished events in the partition, by status' });

const from = z.iso.datetime().nullable().meta({
  description:
    'First moment of the id range (inclusive); null for the legacy partition, open below',
});
const to = z.iso.datetime().meta({ description: 'End of the id range (exclusive)' });

export const EventLogPartitionSchema = z
  .object({
    table: EventLogTableSchema,
    name: z.string(),
    from,
    to,
    sizeBytes: z.int().min(0).meta({
      description: 'Bytes on disk: table, indexes and TOAST (pg_total_relation_size)',
    }),
    rowsEstimate: z.int().min(0).nullable().meta({
      description:
        "The planner's estimate of its rows (pg_class.reltuples) as of the last VACUUM or ANALYZE, not a count; null when it was never analysed",
    }),
    state: z.enum(PARTITION_STATES).meta({
      description:
        '`future`: made ahead, its period has not begun. `current`: its period has begun and is within the longest retention in force (`longestRetentionDays`). `expiring`: wholly older than that; the next maintenance round drops it. `held`: as old, but kept while it holds unfinished events. `restored`: loaded back from an archive, never dropped automatically',
    }),
    detachPending: z.boolean().meta({
      description: 'A detach was interrupted; the next maintenance round finishes it',
    }),
    heldReason: z.string().optional().meta({ description: 'Why it is kept; only when `held`' }),
    unfinished: UnfinishedCountsSchema.optional().meta({
      description: 'Only on a `held` webhook_logs partition',
    }),
  })
  .meta({ id: 'EventLogPartition' });
export type EventLogPartition = z.infer<typeof EventLogPartitionSchema>;

export const HeldPartitionSchema = z
  .object({
    name: z.string().meta({ description: 'The webhook_logs partition kept' }),
    from,
    to,
    unfinished: UnfinishedCountsSchema,
    reason: z.string(),
  })
  .meta({ id: 'HeldPartition' });

const TableTotalsSchema = z.object({
  sizeBytes: z.int().min(0).meta({ description: 'Sum of the sizeBytes of its partitions' }),
  partitions: z.int().min(0),
});

export const EventLogStorageSchema = z
  .object({
    retentionDays: z.int().min(0).meta({
      description:
        'Days an event is kept (EVENT_LOG_RETENTION_DAYS of this API; workers drop, so give them the same), unless its account has a retention of its own; 0 keeps everything',
    }),
    longestRetentionDays: z.int().min(0).meta({
      description:
        "The longest retention in force, retentionDays or an account's own: partitions are dropped only past it, and the events of accounts that keep theirs less long are deleted from them row by row; 0 keeps everything",
    }),
    partitionInterval: z.enum(['hour', 'day', 'week']).meta({
      description: 'The period of one partition (EVENT_LOG_PARTITION), on a UTC grid',
    }),
    archive: z
      .object({ enabled: z.boolean() })
      .meta({ description: 'Whether expired partitions are archived before they are dropped' }),
    partitions: z.array(EventLogPartitionSchema).meta({
      description: 'Every partition of both tables, by the end of its range, oldest first',
    }),
    totals: z
      .object({ webhook_logs: TableTotalsSchema, event_attempts: TableTotalsSchema })
      .meta({ description: 'Per table' }),
    premadeUntil: z.iso.datetime().nullable().meta({
      description:
        'The end of the newest webhook_logs partition: events made after it would have nowhere to go. Maintenance keeps it a week ahead',
    }),
    nextDrop: z
      .object({
        partition: z.string().meta({
          description: 'The webhook_logs partition (its event_attempts partition goes with it)',
        }),
        at: z.iso.datetime().meta({
          description:
            'When its period passes the cut-off of the longest retention in force; in the past when it is `expiring`, dropped by the next maintenance round',
        }),
      })
      .nullable()
      .meta({
        description:
          'The next partition retention drops, held ones aside; null when nothing will (longestRetentionDays 0)',
      }),
    held: z.array(HeldPartitionSchema).meta({
      description:
        'Partitions past the longest retention in force kept because events in them are unfinished',
    }),
  })
  .meta({ id: 'EventLogStorage' });
export type EventLogStorage = z.infer<typeof EventLogStorageSchema>;
