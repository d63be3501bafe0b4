// Index costs (`pnpm bench --index-costs`): what each index of the event log costs the
// accept path. Accept capacity is searched with every index, then with each droppable
// index of webhook_logs dropped in turn and recreated afterwards, and the all-indexes
// reference is searched again every few variants: two shared cores drift over minutes,
// so each variant is compared with the references just before and after it. Indexes
// behind a primary key or a unique constraint are reported, not dropped: without them the
// table would mean something else. Names come from the catalog at run time, so a
// partitioned webhook_logs is measured the same way as a plain one.
import pg from 'pg';
import type { BenchEnvironment } from '../bench-environment.js';
import { createEventStream } from '../support/event-mix.js';
import { runFixedRate } from '../support/fixed-rate-load.js';
import { describeLoad } from '../support/format.js';
import { noteLines, writeResultsFile, type RunFacts } from '../support/results-file.js';
import { searchCapacity, type CapacityStep } from './capacity.js';
import { contentUrl } from '../support/launchers.js';

/** The accept path writes this table: its indexes are the ones dropped in turn. */
const MEASURED_TABLE = 'webhook_logs';
/** Reported with their sizes; event_attempts is written by the worker, not measured here. */
const REPORTED_TABLES = [MEASURED_TABLE, 'event_attempts'];

const KIND_OF_CONSTRAINT = { p: 'primary key', u: 'unique constraint', x: 'exclusion' } as const;
export type IndexKind =
  (typeof KIND_OF_CONSTRAINT)[keyof typeof KIND_OF_CONSTRAINT] | 'unique index' | 'index';

export interface IndexEntry {
  /** As regclass prints it: quoted where needed, with the schema when off the search path. */
  name: string;
  table: string;
  /** pg_get_indexdef's text. */
  definition: string;
  kind: IndexKind;
  /** On a partitioned table: the parent index, which DROP INDEX drops with its partitions'. */
  partitioned: boolean;
  /** The partitions' indexes under it (any depth), each by its table and bare name. */
  partitions: Array<{ table: string; name: string; ref: string }>;
  /** Tables whose foreign keys rest on it. */
  referencedBy: string[];
}

const LIST_INDEXES = `
  SELECT i.indexrelid::regclass::text AS name, i.indrelid::regclass::text AS "table",
         pg_get_indexdef(i.indexrelid) AS definition, i.indisunique AS "unique",
         c.relkind = 'I' AS partitioned,
         (SELECT k.contype::text FROM pg_constraint k WHERE k.conindid = i.indexrelid
            AND k.conrelid = i.indrelid AND k.contype IN ('p', 'u', 'x')) AS "constraint",
         ARRAY(SELECT DISTINCT f.conrelid::regclass::text
               FROM pg_constraint f JOIN pg_class r ON r.oid = f.conrelid
               WHERE f.contype = 'f' AND f.conindid = i.indexrelid AND NOT r.relispartition
               ORDER BY 1) AS "referencedBy",
         ARRAY(SELECT json_build_object('table', x.indrelid::regclass::text,
                                        'name', pc.relname, 'ref', p.relid::regclass::text)
               FROM pg_partition_tree(i.indexrelid::regclass) p
               JOIN pg_index x ON x.indexrelid = p.relid JOIN pg_class pc ON pc.oid = p.relid
               WHERE p.level > 0 ORDER BY pc.relname) AS partitions
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
  WHERE i.indrelid = $1::regclass
  ORDER BY 1`;

/** On disk, partitions included (a partitioned index or table holds no pages itself). */
const SIZE_OF = `
  SELECT COALESCE((SELECT sum(pg_relation_size(relid)) FROM pg_partition_tree($1::regclass)),
                  pg_relation_size($1::regclass))::bigint AS bytes`;

type IndexRow = Omit<IndexEntry, 'kind'> & { unique: boolean; constraint: string | null };

export async function listIndexes(db: pg.Pool, table: string): Promise<IndexEntry[]> {
  const { rows } = await db.query<IndexRow>(LIST_INDEXES, [table]);
  return rows.map(({ unique, constraint, ...row }) => {
    const byConstraint = KIND_OF_CONSTRAINT[constraint as keyof typeof KIND_OF_CONSTRAINT];
    return { ...row, kind: byConstraint ?? (unique ? 'unique index' : 'index') };
  });
}

/** Why an index is not dropped: what it guarantees, and what rests on it. */
function requiredBecause(index: IndexEntry): string {
  const on = index.definition.slice(index.definition.indexOf(' USING ') + 7);
  const fks =
    index.referencedBy.length > 0
      ? `; foreign keys of ${index.referencedBy.join(', ')} rest on it`
      : '';
  const what = index.kind === 'exclusion' ? 'exclusion' : 'uniqueness';
  return `${index.kind} ${on}: dropping it drops the ${what} it enforces${fks}`;
}

/** One DDL statement in a transaction of its own, which waits at most 10 s for its lock. */
async function ddl(db: pg.Pool, sql: string): Promise<void> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    // Between steps nothing holds webhook_logs; a lock not granted by then is a fault.
    await client.query(`SET LOCAL lock_timeout = '10s'`);
    await client.query(sql);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

const sameShape = (a: IndexEntry, b: IndexEntry) =>
  a.definition === b.definition &&
  a.partitions.every((p) => b.partitions.some((q) => q.table === p.table && q.name === p.name));

/**
 * Recreates a dropped index as it was. On a partitioned table pg_get_indexdef reads
 * `ON ONLY` (how pg_dump makes a parent index before attaching its partitions' ones): run
 * as it is, it would make an invalid index on the parent alone, so ONLY is taken out and
 * the index is built on every partition; the partitions' indexes then get back their
 * former names (a new partition's keeps the generated one). Checked against the catalog.
 */
export async function recreateIndex(db: pg.Pool, index: IndexEntry): Promise<void> {
  const definition = index.partitioned
    ? index.definition.replace(' ON ONLY ', ' ON ')
    : index.definition;
  await ddl(db, definition);
  const made = (await listIndexes(db, index.table)).find((i) => i.name === index.name);
  for (const part of made?.partitions ?? []) {
    const was = index.partitions.find((p) => p.table === part.table);
    if (was !== undefined && was.name !== part.name) {
      await ddl(db, `ALTER INDEX ${part.ref} RENAME TO ${pg.escapeIdentifier(was.name)}`);
    }
  }
  const now = (await listIndexes(db, index.table)).find((i) => i.name === index.name);
  if (now === undefined || !sameShape(index, now)) {
    throw new Error(`${index.name} was not recreated as it was: ${JSON.stringify(now)}`);
  }
}

/** Runs `work` with `index` dropped, and recreates it however `work` ends. */
export async function withoutIndex<T>(
  db: pg.Pool,
  index: IndexEntry,
  work: () => Promise<T>,
): Promise<T> {
  await ddl(db, `DROP INDEX ${index.name}`);
  try {
    return await work();
  } finally {
    await recreateIndex(db, index);
  }
}

interface Run {
  /** The index dropped; null for the all-indexes reference. */
  without: string | null;
  capacity: number;
  /** p99 of the highest rate that passed. */
  p99AtCapacityMs: number;
  /** At the start rate, the same in every run: p99 and CPU per 1,000 events. */
  atStart: { rate: number; p99Ms: number; postgresCpuMs: number; apiCpuMs: number };
  steps: CapacityStep[];
}

/** CPU-ms per 1,000 events accepted in a step (the meter spans its ramp-in too). */
const cpuPerThousand = (cores: number | undefined, step: CapacityStep) =>
  ((cores ?? NaN) * (1 + step.load.durationSeconds) * 1e6) / step.load.acceptedTotal;

async function searchRun(env: BenchEnvironment, without: string | null, start: number) {
  const { plan } = env.options;
  const narrow = { stepSeconds: plan.indexCostStepSeconds, warmupSeconds: 1, bisections: 1 };
  const tuned = { ...plan, ...narrow, searchGrowth: plan.indexCostGrowth };
  const { rate, steps } = await searchCapacity(
    { ...env, options: { ...env.options, plan: tuned } },
    'service',
    env.api,
    start,
  );
  const atStart = steps.find((s) => s.rate === start && s.failure === undefined) ?? steps[0];
  if (atStart === undefined) throw new Error('a capacity search made no step');
  const top = steps.find((s) => s.rate === rate && s.failure === undefined);
  const run: Run = {
    without,
    capacity: rate,
    p99AtCapacityMs: top?.load.latencyMs.p99 ?? NaN,
    atStart: {
      rate: start,
      p99Ms: atStart.load.latencyMs.p99,
      postgresCpuMs: cpuPerThousand(atStart.cpu.cores.postgres, atStart),
      apiCpuMs: cpuPerThousand(atStart.cpu.cores.service, atStart),
    },
    steps,
  };
  env.log(`  => ${without ?? 'all indexes'}: ${rate}/s`);
  return run;
}

type Reference = Run['atStart'] & { capacity: number; p99AtCapacityMs: number };

export interface IndexCostsResult {
  calibration: number;
  startRate: number;
  references: Run[];
  variants: Array<{ index: IndexEntry; run: Run; reference: Reference }>;
  required: Array<{ index: IndexEntry; reason: string }>;
  /** After one step at the start rate, left in the tables and vacuumed. */
  sizes: { events: number; tables: Record<string, number>; indexes: Record<string, number> };
  seconds: number;
}

/** A variant's reference: the mean of the all-indexes runs just before and just after it. */
function referenceOf(a: Run, b: Run): Reference {
  const mean = (pick: (run: Run) => number) => (pick(a) + pick(b)) / 2;
  return {
    rate: a.atStart.rate,
    capacity: mean((r) => r.capacity),
    p99AtCapacityMs: mean((r) => r.p99AtCapacityMs),
    p99Ms: mean((r) => r.atStart.p99Ms),
    postgresCpuMs: mean((r) => r.atStart.postgresCpuMs),
    apiCpuMs: mean((r) => r.atStart.apiCpuMs),
  };
}

/** Sizes on disk after one step's load, left in the tables: what each index takes per event. */
async function sizesAfterLoad(env: BenchEnvironment, rate: number, indexes: IndexEntry[]) {
  const { plan } = env.options;
  await env.reset();
  const stream = createEventStream(env.keys, env.tag('size'), 'creates');
  const url = contentUrl(env.api);
  const load = await runFixedRate(url, stream, rate, plan.indexCostStepSeconds, plan.connections);
  env.log(`  sizes after ${describeLoad(load)}`);
  // As autovacuum would: a GIN index with fastupdate (the default) keeps new entries in a
  // pending list, looser than its tree, until a vacuum merges them.
  for (const table of REPORTED_TABLES) await env.db.query(`VACUUM ${table}`);
  const sizeOf = async (relation: string) =>
    Number((await env.db.query<{ bytes: string }>(SIZE_OF, [relation])).rows[0]?.bytes);
  const count = await env.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${MEASURED_TABLE}`,
  );
  const sizes = {
    events: count.rows[0]?.n ?? 0,
    tables: Object.fromEntries(
      await Promise.all(REPORTED_TABLES.map(async (t) => [t, await sizeOf(t)] as const)),
    ),
    indexes: Object.fromEntries(
      await Promise.all(indexes.map(async (i) => [i.name, await sizeOf(i.name)] as const)),
    ),
  };
  await env.reset();
  return sizes;
}

export async function measureIndexCosts(env: BenchEnvironment): Promise<IndexCostsResult> {
  const started = performance.now();
  const { plan } = env.options;
  const measured = await listIndexes(env.db, MEASURED_TABLE);
  const others = (
    await Promise.all(REPORTED_TABLES.slice(1).map((table) => listIndexes(env.db, table)))
  ).flat();
  const droppable = measured.filter((index) => index.kind === 'index');
  const required = [...measured, ...others]
    .filter((index) => index.kind !== 'index')
    .map((index) => ({ index, reason: requiredBecause(index) }));
  env.log(
    `index costs: ${droppable.length} indexes of ${MEASURED_TABLE} dropped in turn; ` +
      `required: ${required.map((r) => r.index.name).join(', ')}`,
  );
  env.log(`index costs: calibration from ${plan.indexCostCalibrationRate}/s, all indexes`);
  const calibrationPlan = { ...plan, stepSeconds: plan.indexCostStepSeconds, bisections: 1 };
  const calibration = await searchCapacity(
    { ...env, options: { ...env.options, plan: calibrationPlan } },
    'service',
    env.api,
    plan.indexCostCalibrationRate,
  );
  const startRate = Math.max(50, Math.round(calibration.rate * plan.indexCostStartFraction));

  env.log('index costs: all indexes (reference 1)');
  const references = [await searchRun(env, null, startRate)];
  const variants: Array<{ index: IndexEntry; run: Run; reference: number }> = [];
  for (const [n, index] of droppable.entries()) {
    env.log(`index costs: without ${index.name} (${n + 1} of ${droppable.length})`);
    const run = await withoutIndex(env.db, index, () => searchRun(env, index.name, startRate));
    const before = references.length - 1;
    if ((n + 1) % plan.indexCostReferenceEvery === 0 || n === droppable.length - 1) {
      env.log(`index costs: all indexes (reference ${references.length + 1})`);
      references.push(await searchRun(env, null, startRate));
    }
    variants.push({ index, run, reference: before });
  }
  const back = await listIndexes(env.db, MEASURED_TABLE);
  const missing = measured.filter((m) => !back.some((b) => b.name === m.name && sameShape(m, b)));
  if (missing.length > 0) throw new Error(`not restored: ${missing.map((m) => m.name).join(', ')}`);
  const sizes = await sizesAfterLoad(env, startRate, [...measured, ...others]);

  const capacities = references.map((r) => r.capacity);
  const spread = Math.max(...capacities) / Math.min(...capacities);
  env.notes.push(
    `Every capacity search starts at ${startRate}/s (${plan.indexCostStartFraction} of the ` +
      `calibration's ${calibration.rate}/s), steps of 1 + ${plan.indexCostStepSeconds} s rise ` +
      `x${plan.indexCostGrowth} until one fails, then one bisection: each capacity is within ` +
      `about 5% below the true one. Criteria as the capacity phase (all 202, p99 < 100 ms, rate kept).`,
    `All-indexes references: ${capacities.map((c) => `${c}/s`).join(', ')} (max / min ` +
      `${spread.toFixed(2)}); each variant is compared with the mean of the references just ` +
      'before and after it. A capacity ratio within that spread of 1.00 is noise; CPU per event ' +
      'at the common start rate is the finer figure.',
    'The event tables are emptied before every step, so an index costs here the CPU to maintain ' +
      'a small, cached index. At production size an index also takes cache and I/O: see the sizes, ' +
      `measured after ${sizes.events} events (one step at ${startRate}/s) and a VACUUM.`,
    'event_attempts is written by the worker, which does not run in this mode: its size is 0.',
  );
  return {
    calibration: calibration.rate,
    startRate,
    references,
    variants: variants.map(({ index, run, reference }) => ({
      index,
      run,
      reference: referenceOf(references[reference]!, references[reference + 1]!),
    })),
    required,
    sizes,
    seconds: (performance.now() - started) / 1000,
  };
}

const ratio = (a: number, b: number) =>
  b > 0 && Number.isFinite(a / b) ? (a / b).toFixed(2) : 'n/a';
const versus = (a: number, b: number, show: (n: number) => string) =>
  `${show(a)} / ${show(b)} = ${ratio(a, b)}`;
const rate = (n: number) => `${Math.round(n)}/s`;
const millis = (n: number) => (Number.isFinite(n) ? `${n.toFixed(1)} ms` : 'n/a');
const kib = (n: number) => (Number.isFinite(n) ? `${Math.round(n / 1024)} KiB` : 'n/a');

function markdown(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  const line = (row: string[]) =>
    `| ${widths.map((w, c) => (row[c] ?? '').padEnd(w)).join(' | ')} |`;
  const [header = [], ...body] = rows;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

/** The results as one table: each index, its size, and each figure without it / with all. */
export function indexCostsTable(result: IndexCostsResult | undefined): string {
  if (result === undefined) return '(no figures)';
  const { sizes, startRate } = result;
  const perThousand = (bytes: number) => kib((bytes * 1000) / sizes.events);
  const size = (name: string) => sizes.indexes[name] ?? NaN;
  const rows = [
    [
      'Index',
      `Size (${sizes.events} events)`,
      'Per 1,000 events',
      'Capacity without / with',
      `p99 at ${startRate}/s without / with`,
      'PostgreSQL CPU per 1,000 events without / with',
    ],
    ...result.variants.map(({ index, run, reference: ref }) => [
      index.name,
      kib(size(index.name)),
      perThousand(size(index.name)),
      versus(run.capacity, ref.capacity, rate),
      versus(run.atStart.p99Ms, ref.p99Ms, millis),
      versus(run.atStart.postgresCpuMs, ref.postgresCpuMs, millis),
    ]),
    ...result.required.map(({ index, reason }) => [
      index.name,
      kib(size(index.name)),
      perThousand(size(index.name)),
      `required: ${reason}`,
      '—',
      '—',
    ]),
  ];
  return markdown(rows);
}

/** Writes results/index-costs.md and .json, the layout of results/latest.*. */
export function writeIndexCosts(
  facts: RunFacts,
  result: IndexCostsResult | undefined,
  notes: string[],
) {
  const body = [indexCostsTable(result), '', ...noteLines(notes)];
  return writeResultsFile('index-costs', facts, body, { result, notes });
}
