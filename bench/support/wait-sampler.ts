// Where the bench database's backends spend a measurement when it is not CPU: what
// pg_stat_activity says they wait on (sampled), and how much WAL, buffer traffic and disk
// writing the server did (counters read before and after). CPU use alone cannot tell a
// slower figure's waiting apart: commit fsyncs, lock queues and reads all look idle.
import { readFileSync } from 'node:fs';
import pg from 'pg';

/** Between samples of pg_stat_activity: fine enough to see waits of a few milliseconds. */
const SAMPLE_EVERY_MS = 5;

interface Counters {
  walFpi: number;
  walBytes: number;
  walSyncs: number;
  checkpoints: number;
  buffersBackend: number;
  blocksRead: number;
  commits: number;
  disk: { writes: number; writeMs: number; flushes: number; flushMs: number };
}

/**
 * Sums over a measurement, or over several (mergeWaits): the samples, and how the
 * server's counters moved. Shares and means are derived when shown.
 */
export interface WaitReport {
  samples: number;
  /** Sampled active backends, summed over the samples. */
  activeBackends: number;
  /** Those active backends by what they waited on ('CPU' when on nothing). */
  waits: Record<string, number>;
  /** Transactions committed in the database, less the sampler's own. */
  commits: number;
  walBytes: number;
  walFpi: number;
  walSyncs: number;
  checkpoints: number;
  blocksRead: number;
  buffersBackend: number;
  disk: Counters['disk'];
}

/**
 * The busiest block device's write and flush counters (/proc/diskstats): completions and
 * milliseconds spent. Which device holds the data directory is not worth resolving on a
 * one-disk machine; the busiest whole device is it.
 */
function diskCounters(): Counters['disk'] {
  let best = { writes: 0, writeMs: 0, flushes: 0, flushMs: 0 };
  for (const line of readFileSync('/proc/diskstats', 'utf8').split('\n')) {
    const f = line.trim().split(/\s+/);
    // Whole devices only (vda, sda, nvme0n1), not partitions or loop devices.
    if (!/^(vd[a-z]|sd[a-z]|xvd[a-z]|nvme\d+n\d+)$/.test(f[2] ?? '')) continue;
    const disk = {
      writes: Number(f[7]),
      writeMs: Number(f[10]),
      flushes: Number(f[18] ?? 0),
      flushMs: Number(f[19] ?? 0),
    };
    if (disk.writes > best.writes) best = disk;
  }
  return best;
}

async function readCounters(client: pg.Client): Promise<Counters> {
  const { rows } = await client.query<Record<string, string>>(
    `SELECT w.wal_fpi, w.wal_bytes, w.wal_sync,
            b.checkpoints_timed + b.checkpoints_req AS checkpoints,
            b.buffers_backend, d.blks_read, d.xact_commit
       FROM pg_stat_wal w, pg_stat_bgwriter b, pg_stat_database d
      WHERE d.datname = current_database()`,
  );
  const r = rows[0] ?? {};
  return {
    walFpi: Number(r.wal_fpi),
    walBytes: Number(r.wal_bytes),
    walSyncs: Number(r.wal_sync),
    checkpoints: Number(r.checkpoints),
    buffersBackend: Number(r.buffers_backend),
    blocksRead: Number(r.blks_read),
    commits: Number(r.xact_commit),
    disk: diskCounters(),
  };
}

/**
 * Starts sampling the database at `url` on a connection of its own (its own backend is
 * left out of the samples). `stop` ends it and reports.
 */
export async function startWaitSampler(url: string): Promise<{ stop(): Promise<WaitReport> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  client.on('error', () => {});
  // pg_stat_activity is a snapshot per transaction; outside one, each query reads afresh.
  const before = await readCounters(client);
  const waits = new Map<string, number>();
  let samples = 0;
  let active = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await client.query<{ wait: string | null; n: number }>(
        `SELECT wait_event_type || ':' || wait_event AS wait, count(*)::int AS n
           FROM pg_stat_activity
          WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()
          GROUP BY 1`,
      );
      samples += 1;
      for (const { wait, n } of rows) {
        active += n;
        const name = wait ?? 'CPU';
        waits.set(name, (waits.get(name) ?? 0) + n);
      }
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_EVERY_MS));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const after = await readCounters(client);
      await client.end();
      const moved = (key: Exclude<keyof Counters, 'disk'>) => after[key] - before[key];
      return {
        samples,
        activeBackends: active,
        waits: Object.fromEntries(waits),
        // Less the sampler's own read-only transactions, one a sample.
        commits: Math.max(0, moved('commits') - samples),
        walBytes: moved('walBytes'),
        walFpi: moved('walFpi'),
        walSyncs: moved('walSyncs'),
        checkpoints: moved('checkpoints'),
        blocksRead: moved('blocksRead'),
        buffersBackend: moved('buffersBackend'),
        disk: {
          writes: after.disk.writes - before.disk.writes,
          writeMs: after.disk.writeMs - before.disk.writeMs,
          flushes: after.disk.flushes - before.disk.flushes,
          flushMs: after.disk.flushMs - before.disk.flushMs,
        },
      };
    },
  };
}

/** Several measurements' reports as one (the steps of one side of a search). */
export function mergeWaits(reports: WaitReport[]): WaitReport {
  const sum = (pick: (r: WaitReport) => number) => reports.reduce((n, r) => n + pick(r), 0);
  const waits: Record<string, number> = {};
  for (const report of reports) {
    for (const [wait, n] of Object.entries(report.waits)) waits[wait] = (waits[wait] ?? 0) + n;
  }
  return {
    samples: sum((r) => r.samples),
    activeBackends: sum((r) => r.activeBackends),
    waits,
    commits: sum((r) => r.commits),
    walBytes: sum((r) => r.walBytes),
    walFpi: sum((r) => r.walFpi),
    walSyncs: sum((r) => r.walSyncs),
    checkpoints: sum((r) => r.checkpoints),
    blocksRead: sum((r) => r.blocksRead),
    buffersBackend: sum((r) => r.buffersBackend),
    disk: {
      writes: sum((r) => r.disk.writes),
      writeMs: sum((r) => r.disk.writeMs),
      flushes: sum((r) => r.disk.flushes),
      flushMs: sum((r) => r.disk.flushMs),
    },
  };
}

/** The share of sampled active backends waiting on each thing, largest first. */
export function waitShares(report: WaitReport): Array<{ wait: string; share: number }> {
  return Object.entries(report.waits)
    .map(([wait, n]) => ({
      wait,
      share: report.activeBackends > 0 ? n / report.activeBackends : 0,
    }))
    .sort((a, b) => b.share - a.share);
}

/** One line for the progress log and the report's notes. */
export function describeWaits(report: WaitReport): string {
  const top = waitShares(report)
    .slice(0, 5)
    .map(({ wait, share }) => `${wait} ${(share * 100).toFixed(0)}%`)
    .join(', ');
  const commits = Math.max(1, report.commits);
  const mean = (ms: number, n: number) => (n > 0 ? `${(ms / n).toFixed(2)} ms` : 'n/a');
  const active = report.activeBackends / Math.max(1, report.samples);
  return (
    `backends ${active.toFixed(1)} active on average, waiting on: ${top}; per commit ` +
    `(${report.commits}): WAL ${Math.round(report.walBytes / commits)} B with ` +
    `${(report.walFpi / commits).toFixed(2)} full-page images, ` +
    `${(report.blocksRead / commits).toFixed(2)} blocks read, ` +
    `${(report.walSyncs / commits).toFixed(2)} WAL syncs; ${report.checkpoints} checkpoints; ` +
    `disk write ${mean(report.disk.writeMs, report.disk.writes)}, flush ` +
    `${mean(report.disk.flushMs, report.disk.flushes)}`
  );
}
