import { Gauge, type Registry } from 'prom-client';
import { oneReadPerScrape } from './within.js';

/** What the event log's storage holds, as the API reads it from PostgreSQL's catalog. */
export interface EventLogFigures {
  /** Per partitioned table: bytes on disk (table, indexes, TOAST) and partitions. */
  tables: Array<{ table: string; bytes: number; partitions: number }>;
  /** Partitions past the retention period kept because they hold unfinished events. */
  heldPartitions: number;
  /** When the newest webhook_logs partition ends (ms since the epoch); null when none. */
  premadeUntilMs: number | null;
  /** When retention's next drop is due (ms since the epoch); null when nothing will drop. */
  nextDropAtMs: number | null;
}

const HOUR_MS = 3_600_000;

/**
 * The event log's storage series, read from PostgreSQL at each scrape:
 * - `ingest_event_log_bytes{table}` and `ingest_event_log_partitions{table}`;
 * - `ingest_event_log_partitions_held`;
 * - `ingest_event_log_premade_hours`: how far past now partitions are made, which falls
 *   by an hour an hour once maintenance stops (it keeps about a week's);
 * - `ingest_event_log_drop_overdue_hours`: how long retention's next drop is overdue,
 *   which rises while retention does not drop;
 * - `ingest_postgres_up`: whether the read answered, the one figure always served.
 * The others are left out of a scrape whose read fails or takes longer than `timeoutMs`,
 * rather than repeating the last figures, as the queue's series are.
 */
export function registerEventLogStorage(
  registry: Registry,
  readFigures: () => Promise<EventLogFigures>,
  timeoutMs = 2_000,
): void {
  const read = oneReadPerScrape(readFigures, timeoutMs);

  new Gauge({
    name: 'ingest_postgres_up',
    help: "Whether PostgreSQL answered this scrape's read of the event log's storage (1) or not (0)",
    registers: [registry],
    async collect() {
      this.set((await read()) === undefined ? 0 : 1);
    },
  });
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
  new Gauge({
    name: 'ingest_event_log_drop_overdue_hours',
    help: "Hours since retention's next partition drop fell due (0 while it is ahead); absent when retention drops nothing (EVENT_LOG_RETENTION_DAYS=0) or only held partitions are past it",
    registers: [registry],
    async collect() {
      const due = (await read())?.nextDropAtMs;
      if (due === undefined || due === null) this.remove();
      else this.set(Math.max(0, (Date.now() - due) / HOUR_MS));
    },
  });
}
