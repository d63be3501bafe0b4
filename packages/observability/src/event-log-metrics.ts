import { Gauge, type Registry } from 'prom-client';
import { settleWithin } from './within.js';

/** What the event log's storage holds, as the API reads it from PostgreSQL's catalog. */
export interface EventLogFigures {
  /** Per partitioned table: bytes on disk (table, indexes, TOAST) and partitions. */
  tables: Array<{ table: string; bytes: number; partitions: number }>;
  /** Partitions past the retention period kept because they hold unfinished events. */
  heldPartitions: number;
  /** When the newest webhook_logs partition ends (ms since the epoch); null when none. */
  premadeUntilMs: number | null;
}

const HOUR_MS = 3_600_000;

/**
 * The event log's storage series, read from PostgreSQL at each scrape:
 * - `ingest_event_log_bytes{table}` and `ingest_event_log_partitions{table}`;
 * - `ingest_event_log_partitions_held`;
 * - `ingest_event_log_premade_hours`: how far past now partitions are made, which falls
 *   by an hour an hour once maintenance stops (it keeps about a week's).
 * All are left out of a scrape whose read fails or takes longer than `timeoutMs`, rather
 * than repeating the last figures, as the queue's series are.
 */
export function registerEventLogStorage(
  registry: Registry,
  readFigures: () => Promise<EventLogFigures>,
  timeoutMs = 2_000,
): void {
  // The four gauges are collected together at each scrape, so they share one read.
  let reading: Promise<EventLogFigures | undefined> | undefined;
  const read = () =>
    (reading ??= settleWithin(readFigures(), timeoutMs).finally(() => {
      reading = undefined;
    }));

  for (const [name, help, field] of [
    [
      'ingest_event_log_bytes',
      'Bytes on disk of an event-log table: partitions, indexes, TOAST',
      'bytes',
    ],
    [
      'ingest_event_log_partitions',
      'Partitions of an event-log table, restored ones included',
      'partitions',
    ],
  ] as const) {
    new Gauge({
      name,
      help,
      labelNames: ['table'],
      registers: [registry],
      async collect() {
        const figures = await read();
        this.reset();
        for (const table of figures?.tables ?? []) this.set({ table: table.table }, table[field]);
      },
    });
  }
  new Gauge({
    name: 'ingest_event_log_partitions_held',
    help: 'Event-log partitions past the retention period kept because they hold unfinished events',
    registers: [registry],
    async collect() {
      const figures = await read();
      if (figures === undefined) this.remove();
      else this.set(figures.heldPartitions);
    },
  });
  new Gauge({
    name: 'ingest_event_log_premade_hours',
    help: 'Hours from now to the end of the newest webhook_logs partition; falls while partition maintenance is stopped',
    registers: [registry],
    async collect() {
      const until = (await read())?.premadeUntilMs;
      if (until === undefined || until === null) this.remove();
      else this.set((until - Date.now()) / HOUR_MS);
    },
  });
}
