import type { Database } from './client.js';

export interface ReadReplicaOptions {
  primary: Database;
  /** A streaming replica of the primary; undefined: every read goes to the primary. */
  replica?: Database;
  /** Reads go back to the primary while the replica is further behind than this. */
  maxLagMs: number;
  /** How often the replica's lag is read. */
  checkEveryMs: number;
  /** Called when reads move from one to the other, with why (the lag, or the error). */
  onSwitch?: (to: 'replica' | 'primary', why: { lagSeconds?: number; error?: unknown }) => void;
}

export interface ReadReplica {
  /**
   * Where a read that need not be fresh goes now: the replica while it answers and is at
   * most `maxLagMs` behind, else the primary.
   */
  reader(): Database;
  /** The replica's lag when last read, in seconds; undefined without one or while it is away. */
  lagSeconds(): number | undefined;
  /** Whether reads go to the replica now. */
  inUse(): boolean;
  close(): Promise<void>;
}

/**
 * How far behind the replica is: 0 when it has replayed all it received, else how old
 * the last transaction it replayed is. A replica with nothing to replay is not behind,
 * however long ago the primary last wrote.
 */
const LAG_SQL = `
  SELECT pg_is_in_recovery() AS replica,
         CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
              ELSE extract(epoch FROM now() - pg_last_xact_replay_timestamp())
         END::float8 AS lag`;

/**
 * Reads that may be a little stale (public reads, operators' searches and storage view)
 * go to a replica; everything else stays on the primary. The lag is read every
 * `checkEveryMs`; until the first reading, and whenever it fails or exceeds the bound,
 * reads go to the primary, so a replica that falls behind or goes away costs freshness
 * for at most one interval, never an error.
 */
export function createReadReplica(options: ReadReplicaOptions): ReadReplica {
  const { primary, replica } = options;
  let lag: number | undefined;
  /** Whether reads go to the replica; undefined until its lag is first read. */
  let usable: boolean | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let checking: Promise<void> = Promise.resolve();

  async function check(on: Database): Promise<void> {
    let failure: unknown;
    try {
      const { rows } = await on.pool.query<{ replica: boolean; lag: number | null }>(LAG_SQL);
      const row = rows[0];
      // A promoted replica (no longer in recovery) is a primary of its own: not ours.
      lag = row?.replica === true ? (row.lag ?? 0) : undefined;
      if (lag === undefined) failure = new Error('the read replica is not in recovery');
    } catch (error) {
      lag = undefined;
      failure = error;
    }
    const now = lag !== undefined && lag * 1_000 <= options.maxLagMs;
    if (now !== usable) {
      options.onSwitch?.(now ? 'replica' : 'primary', {
        ...(lag === undefined ? {} : { lagSeconds: lag }),
        ...(failure === undefined ? {} : { error: failure }),
      });
    }
    usable = now;
  }

  const schedule = () => {
    if (stopped || replica === undefined) return;
    timer = setTimeout(() => {
      checking = check(replica).finally(schedule);
    }, options.checkEveryMs);
    timer.unref();
  };
  if (replica !== undefined) checking = check(replica).finally(schedule);

  return {
    reader: () => (usable === true && replica !== undefined ? replica : primary),
    lagSeconds: () => lag,
    inUse: () => usable === true,
    async close() {
      stopped = true;
      clearTimeout(timer);
      await checking;
      await replica?.close();
    },
  };
}
