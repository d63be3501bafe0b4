// `pnpm bench:unlink-stall [MB]`: what dropping a large table costs everyone else's commits.
// Eight connections insert one row per transaction (each commit an fsync) for 6 s; after
// 3 s a table of about MB megabytes (455 by default: a day of the history bench's 10
// million events) is dropped. Prints each quarter-second's commit p99 and max. On this
// machine's ext4 the quarter-second holding the drop had a 45-50 ms max against 2-5 ms in
// the others: unlinking the files stalls the journal, and every fsync waits behind it.
// Why retention drops one period a round (EVENT_LOG_DROPS_PER_ROUND).
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { percentile, sortedSamples } from './support/percentiles.js';

const url = process.env.DATABASE_URL ?? 'postgresql://postgres:postgres@127.0.0.1:5432/postgres';
const megabytes = Number(process.argv[2] ?? 455);
const WINDOW_MS = 250;

const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query(`DROP TABLE IF EXISTS unlink_stall_big, unlink_stall_commits`);
// Logged, so that each commit waits for its WAL to reach the disk.
await admin.query(`CREATE TABLE unlink_stall_commits (id bigserial, at timestamptz)`);
// About 480 bytes a row with its index.
const rows = Math.round((megabytes * 2 ** 20) / 480);
await admin.query(
  `CREATE TABLE unlink_stall_big AS SELECT g, repeat('x', 400) AS pad FROM generate_series(1, $1::int) g`,
  [rows],
);
await admin.query(`CREATE INDEX ON unlink_stall_big (g)`);
await admin.query('CHECKPOINT');
const { rows: size } = await admin.query<{ size: string }>(
  `SELECT pg_size_pretty(pg_total_relation_size('unlink_stall_big')) AS size`,
);

const writers = await Promise.all(
  Array.from({ length: 8 }, async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return client;
  }),
);
const commits: Array<{ at: number; ms: number }> = [];
let stopped = false;
const origin = performance.now();
const loops = writers.map(async (client) => {
  while (!stopped) {
    const at = performance.now() - origin;
    await client.query(`INSERT INTO unlink_stall_commits (at) VALUES (now())`);
    commits.push({ at, ms: performance.now() - origin - at });
  }
});
await sleep(3_000);
const dropFrom = performance.now() - origin;
await admin.query(`DROP TABLE unlink_stall_big`);
const dropTo = performance.now() - origin;
await sleep(3_000);
stopped = true;
await Promise.all(loops);

console.log(`DROP TABLE of ${size[0]?.size}: ${(dropTo - dropFrom).toFixed(1)} ms`);
console.log('window (ms)  commits  p99 ms  max ms');
for (let from = 0; from < 6_000; from += WINDOW_MS) {
  const sorted = sortedSamples(
    commits.filter((c) => c.at >= from && c.at < from + WINDOW_MS).map((c) => c.ms),
  );
  const holdsDrop = from < dropTo && dropFrom < from + WINDOW_MS;
  console.log(
    `${String(from).padStart(5)}-${String(from + WINDOW_MS).padEnd(5)} ${String(sorted.length).padStart(8)}` +
      `  ${percentile(sorted, 0.99).toFixed(1).padStart(6)}  ${(sorted.at(-1) ?? 0).toFixed(1).padStart(6)}` +
      (holdsDrop ? '  <- the drop' : ''),
  );
}
await Promise.all(writers.map((client) => client.end()));
await admin.query(`DROP TABLE unlink_stall_commits`);
await admin.end();
