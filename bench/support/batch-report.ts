// The batches phase's rows in the run's table, with the targets of issue 32, and its notes.
import type { BatchLoad, BatchesResult } from './batch-result.js';
import { ms, perSecond, ratio } from './format.js';
import type { Row } from './results-file.js';

/** Batches' accepted events a second against the single-event capacity: at least this. */
export const BATCH_CAPACITY_TARGET = 5;
/** Per batch call at half the batches' rate, p99: under this. */
export const BATCH_P99_TARGET_MS = 100;
/** The CLI with batches, end to end, against one worker's drain: at least this. */
export const BATCH_CLI_DRAIN_TARGET = 0.9;

const judge = (met: boolean, missed = 'MISSED') => (met ? 'ok' : missed);
const rates = (runs: BatchLoad[]) => runs.map((run) => perSecond(run.load.goodput)).join(', ');

export function batchRows(result: BatchesResult): Row[] {
  const { batchSize: size, connections, capacity, batchRate, singleRate, latency, cli } = result;
  const row = (figure: string, service: string, reference: string, r: string, target = '—') => ({
    figure,
    service,
    reference,
    ratio: r,
    target,
  });
  const closedLoop = `closed loop from ${connections} connections`;
  const capacityRatio = batchRate / capacity.rate;
  const p99 = latency.load.acceptedMs.p99;
  const atCapacityP99 = Math.max(...result.batchRuns.map((run) => run.load.acceptedMs.p99));
  const cliRatio = cli.run.endToEndRate / cli.drainRate;
  const cliName = `CLI ${cli.args.join(' ')} (defaults: batches of 100, 4 in flight)${cli.batchSizeFlag ? '' : ' (no --batch-size: one event a call)'}`;
  return [
    row(
      `Batches of ${size}, keyed, ${closedLoop}: events accepted (runs ${rates(result.batchRuns)})`,
      perSecond(batchRate),
      `${perSecond(capacity.rate)} single-event capacity (all 202, p99 < 100 ms)`,
      ratio(batchRate, capacity.rate),
      `≥ ${BATCH_CAPACITY_TARGET} ${judge(capacityRatio >= BATCH_CAPACITY_TARGET)}`,
    ),
    row(
      `Batches of ${size} against single events, both keyed, ${closedLoop}`,
      perSecond(batchRate),
      `${perSecond(singleRate)} single events (runs ${rates(result.singleRuns)})`,
      ratio(batchRate, singleRate),
    ),
    row(
      `Batch call p50 at ${latency.callRate} calls/s (${latency.callRate * size} events/s, half the batches' rate)`,
      `${ms(latency.load.acceptedMs.p50)} ms`,
      '—',
      '—',
    ),
    row(
      `Batch call p99 at ${latency.callRate} calls/s`,
      `${ms(p99)} ms`,
      `${ms(atCapacityP99)} ms closed loop (worst run)`,
      ratio(p99, atCapacityP99),
      `< ${BATCH_P99_TARGET_MS} ms ${judge(p99 < BATCH_P99_TARGET_MS, 'OVER')}`,
    ),
    row(
      `${cliName}, ${cli.run.events.toLocaleString('en-US')} creates: end to end (start → last applied, 1 worker)`,
      perSecond(cli.run.endToEndRate),
      `${perSecond(cli.drainRate)} drain, 1 worker (${cli.drains.map((d) => perSecond(d.rate)).join(', ')})`,
      ratio(cli.run.endToEndRate, cli.drainRate),
      `≥ ${BATCH_CLI_DRAIN_TARGET} ${judge(cliRatio >= BATCH_CLI_DRAIN_TARGET)}`,
    ),
  ];
}

const cores = (run: BatchLoad, name: string) => (run.cpu.cores[name] ?? 0).toFixed(2);

/** Per event, the API's CPU in a run: its cores over the events it accepted a second. */
const apiMsPerEvent = (run: BatchLoad) =>
  (((run.cpu.cores.api ?? 0) * 1000) / Math.max(1, run.load.goodput)).toFixed(3);

/** Refused calls or items, the CPU that bounds the runs, and where the reference came from. */
export function batchNotes(result: BatchesResult): string[] {
  const { batchSize: size, capacity, latency, cli } = result;
  const runs = [...result.batchRuns, ...result.singleRuns, latency];
  const refusedItems = [...result.batchRuns, latency].reduce(
    (sum, { load }) => sum + ((load.byStatus['200'] ?? 0) * size - load.goodput * load.seconds),
    0,
  );
  const otherAnswers = runs.flatMap(({ load }) =>
    Object.entries(load.byStatus).filter(([status]) => status !== '200' && status !== '202'),
  );
  const [batch] = result.batchRuns;
  const [single] = result.singleRuns;
  return [
    `Batches: every event an article.create of about 2 KB with an idempotency key of its own ` +
      `(the item's idempotencyKey; the Idempotency-Key header for single events), as the client ` +
      `library sends them; the capacity search it is set against sends unkeyed events, which ` +
      `cost the API less (see the CLI notes). The single-event capacity is the ` +
      `${capacity.measuredBy === 'capacity' ? "capacity phase's search" : 'same search, run by the batches phase'}. ` +
      `Load from the paced generator in a process of its own; no worker runs but in the CLI row.`,
    ...(batch && single
      ? [
          `Batches, first run: API ${cores(batch, 'api')} cores, PostgreSQL ${cores(batch, 'postgres')}, ` +
            `Redis ${cores(batch, 'redis')}, generator ${cores(batch, 'generator')} (machine ` +
            `${batch.cpu.machineCores.toFixed(2)}); API CPU ${apiMsPerEvent(batch)} ms an event against ` +
            `${apiMsPerEvent(single)} ms for single keyed events (API ${cores(single, 'api')} cores, ` +
            `PostgreSQL ${cores(single, 'postgres')}).`,
        ]
      : []),
    ...(refusedItems > 0 || otherAnswers.length > 0
      ? [
          `Batches: ${Math.round(refusedItems)} items of answered batches were not queued; other ` +
            `answers: ${otherAnswers.map(([status, n]) => `${n}x ${status}`).join(', ') || 'none'}.`,
        ]
      : []),
    `Batches latency: ${latency.load.answered} calls answered in ${latency.load.seconds} s at ` +
      `${latency.callRate} calls/s over ${result.connections} connections (${Math.round(latency.load.goodput)} events/s accepted).`,
    `Batches, CLI: accepted in ${cli.run.acceptSeconds.toFixed(1)} s (${perSecond(cli.run.acceptRate)}, ` +
      `spawn to exit, the worker applying meanwhile), all applied ${cli.run.endToEndSeconds.toFixed(1)} s ` +
      `after the start. The drains before and after ran ${Math.round(cli.drains[0].rate)}/s and ` +
      `${Math.round(cli.drains[1].rate)}/s.`,
  ];
}
