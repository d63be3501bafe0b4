// Cross-account isolation: another account (the foreigner) sends a burst of updates
// naming the owner's article, each of which must fail ARTICLE_NOT_FOUND; as soon as all
// are accepted, the owner updates the article. How long the owner's update takes, beside
// the same update with no foreign burst before it. Slugs are unique across accounts, so
// nothing in the contract makes the owner wait for events that cannot touch the article.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchEnvironment } from '../bench-environment.js';
import { describeCpu, type CpuUse } from '../support/cpu-meter.js';
import type { BenchKey } from '../support/event-mix.js';
import { ms } from '../support/format.js';
import { startServiceWorker, type RunningHttp } from '../support/launchers.js';
import {
  eventOutcome,
  lastSequence,
  refusedBurst,
  type BurstOutcome,
  type EventScope,
} from '../support/order-queries.js';
import { spreadMs } from '../support/percentiles.js';
import {
  createArticles,
  keyAt,
  sendBurst,
  sendUpdate,
  updateStream,
  waitUntilFinished,
} from '../support/slug-events.js';

/** An owner's update not applied within this long counts as missed (the target is 1 s). */
export const OWNER_DEADLINE_MS = 10_000;
const OWNER_POLL_MS = 50;

export interface OwnerLatency {
  tries: number;
  /** Not applied (or failed) within OWNER_DEADLINE_MS. */
  missed: number;
  /** `finished_at - received_at` of each try; NaN (null in JSON) for a missed one. */
  latenciesMs: number[];
  /**
   * Nearest rank over every try, a missed one counting as slower than any applied:
   * Infinity (null in JSON) when the rank falls on a missed try.
   */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface ForeignTry {
  /** Seconds from the first request of the foreign burst to its last 202. */
  acceptSeconds: number;
  accepted: number;
  ownerMs: number;
  /** The owner's update's status when the try ended: `succeeded` unless something is wrong. */
  ownerStatus: string;
  /** A missed owner's update's latency when it was applied while the foreign burst settled. */
  ownerLateMs: number;
  foreign: BurstOutcome;
  /** The state was rebuilt before the next try: something was left unfinished. */
  reset: boolean;
  cpu: CpuUse;
}

export interface IsolationResult {
  foreignEvents: number;
  ownerDeadlineSeconds: number;
  settleSeconds: number;
  triesPlanned: number;
  alone: OwnerLatency;
  behindForeign: OwnerLatency;
  tries: ForeignTry[];
  /** Foreign events that did not fail with ARTICLE_NOT_FOUND, over every try: must be 0. */
  notRefused: number;
}

function latencyOf(samples: number[]): OwnerLatency {
  const sorted = samples.map((n) => (Number.isNaN(n) ? Infinity : n)).sort((a, b) => a - b);
  return {
    tries: samples.length,
    missed: samples.filter(Number.isNaN).length,
    latenciesMs: samples,
    ...spreadMs(sorted),
  };
}

function describeLatency(l: OwnerLatency): string {
  const shown = (n: number) => (n === Infinity ? `> ${OWNER_DEADLINE_MS / 1000} s` : `${ms(n)} ms`);
  const missed = l.missed > 0 ? `, ${l.missed} of ${l.tries} missed` : '';
  return `p50 ${shown(l.p50Ms)}, p99 ${shown(l.p99Ms)}, max ${shown(l.maxMs)}${missed}`;
}

interface OwnerState {
  worker: RunningHttp;
  slug: string;
}

/** From empty tables: a worker, and the owner's one article. */
async function freshState(env: BenchEnvironment, owner: BenchKey[]): Promise<OwnerState> {
  await env.reset();
  const worker = await startServiceWorker(env.processes, env.stores, env.options.cpuProfile);
  const tag = env.tag('iso');
  const slug = `${tag}-s`;
  await createArticles(env, owner, tag, [slug]);
  return { worker, slug };
}

/**
 * Sends the owner's update and waits for it: its latency from the database, NaN when it
 * was not applied within OWNER_DEADLINE_MS (or failed).
 */
async function ownerUpdate(env: BenchEnvironment, key: BenchKey, slug: string, title: string) {
  const id = await sendUpdate(env, key, slug, title);
  const deadline = Date.now() + OWNER_DEADLINE_MS;
  for (;;) {
    const { status, lagMs } = await eventOutcome(env.db, id);
    if (status === 'succeeded') return { id, ms: lagMs };
    if (status === 'failed' || Date.now() >= deadline) return { id, ms: Number.NaN };
    await sleep(OWNER_POLL_MS);
  }
}

async function foreignTry(
  env: BenchEnvironment,
  state: OwnerState,
  ownerKey: BenchKey,
  foreigner: BenchKey[],
  n: number,
): Promise<ForeignTry> {
  const { isolationForeignEvents, isolationSettleSeconds } = env.options.plan;
  const scope: EventScope = {
    after: await lastSequence(env.db),
    accountId: foreigner[0]?.accountId ?? '',
  };
  const meter = await env.cpuMeter([
    { name: 'api', pid: env.api.proc.pid },
    { name: 'worker', pid: state.worker.proc.pid },
  ]);
  const stream = updateStream(foreigner, [state.slug], `f${n}-`);
  const load = await sendBurst(env, stream, isolationForeignEvents);
  const acceptedAt = Date.now();
  const owner = await ownerUpdate(env, ownerKey, state.slug, `o${n}`);
  // Bounded, so that a service that cannot finish the burst still ends the run; the
  // state is then rebuilt (below) so that the next try starts from the same place.
  const settled = acceptedAt + isolationSettleSeconds * 1000;
  await waitUntilFinished(env, scope, load.acceptedTotal, settled);
  const cpu = await meter.stop();
  const foreign = await refusedBurst(env.db, scope);
  const final = await eventOutcome(env.db, owner.id);
  const ownerUnfinished = final.status !== 'succeeded' && final.status !== 'failed';
  return {
    acceptSeconds: load.elapsedSeconds,
    accepted: load.acceptedTotal,
    ownerMs: owner.ms,
    ownerStatus: final.status,
    ownerLateMs: Number.isNaN(owner.ms) && final.status === 'succeeded' ? final.lagMs : Number.NaN,
    foreign,
    reset: foreign.finished < foreign.recorded || ownerUnfinished,
    cpu,
  };
}

function describeTry(env: BenchEnvironment, t: ForeignTry): string {
  const late = Number.isNaN(t.ownerLateMs)
    ? `${t.ownerStatus} when the try ended`
    : `applied after ${ms(t.ownerLateMs)} ms`;
  const owner = Number.isNaN(t.ownerMs)
    ? `owner's update missed (not applied within ${OWNER_DEADLINE_MS / 1000} s; ${late})`
    : `owner's update applied in ${ms(t.ownerMs)} ms`;
  const foreign =
    t.foreign.finished < t.foreign.recorded
      ? `${t.foreign.finished} of ${t.foreign.recorded} finished within ` +
        `${env.options.plan.isolationSettleSeconds} s`
      : `all finished ${ms(t.foreign.spanMs)} ms after the first was received`;
  return (
    `${t.accepted} foreign events accepted in ${t.acceptSeconds.toFixed(1)} s; ${owner}; ` +
    `foreign events: ${foreign}${t.reset ? '; state rebuilt' : ''}`
  );
}

export async function measureIsolation(
  env: BenchEnvironment,
  owner: BenchKey[],
  foreigner: BenchKey[],
): Promise<IsolationResult> {
  const { isolationTries, isolationForeignEvents, isolationSettleSeconds, isolationBudgetSeconds } =
    env.options.plan;
  env.log(
    `isolation: another account sends ${isolationForeignEvents} updates naming the owner's ` +
      `article, then the owner one; ${isolationTries} tries, beside ${isolationTries} with no ` +
      'foreign burst',
  );
  const keyOf = (i: number) => keyAt(owner, i);
  let state = await freshState(env, owner);
  try {
    const meter = await env.cpuMeter([{ name: 'worker', pid: state.worker.proc.pid }]);
    const aloneMs: number[] = [];
    for (let i = 0; i < isolationTries; i += 1) {
      aloneMs.push((await ownerUpdate(env, keyOf(i), state.slug, `a${i + 1}`)).ms);
    }
    const alone = latencyOf(aloneMs);
    env.log(
      `  owner's update alone: ${describeLatency(alone)}\n      ${describeCpu(await meter.stop())}`,
    );

    const tries: ForeignTry[] = [];
    const budgetEnd = Date.now() + isolationBudgetSeconds * 1000;
    while (tries.length < isolationTries && Date.now() < budgetEnd) {
      const n = tries.length + 1;
      const t = await foreignTry(env, state, keyOf(n), foreigner, n);
      tries.push(t);
      env.log(`  try ${n}: ${describeTry(env, t)}\n      ${describeCpu(t.cpu)}`);
      if (t.reset && tries.length < isolationTries) {
        await state.worker.proc.stop();
        state = await freshState(env, owner);
      }
    }
    const result: IsolationResult = {
      foreignEvents: isolationForeignEvents,
      ownerDeadlineSeconds: OWNER_DEADLINE_MS / 1000,
      settleSeconds: isolationSettleSeconds,
      triesPlanned: isolationTries,
      alone,
      behindForeign: latencyOf(tries.map((t) => t.ownerMs)),
      tries,
      notRefused: tries.reduce((sum, t) => sum + t.foreign.notRefused, 0),
    };
    env.log(`  owner's update behind the foreign burst: ${describeLatency(result.behindForeign)}`);
    isolationNotes(env, result);
    return result;
  } finally {
    await state.worker.proc.stop();
  }
}

function isolationNotes(env: BenchEnvironment, result: IsolationResult) {
  const { tries, triesPlanned, behindForeign, alone, settleSeconds, foreignEvents } = result;
  if (tries.length < triesPlanned) {
    env.notes.push(
      `Isolation: ${tries.length} of ${triesPlanned} tries ran within the phase's budget of ` +
        `${env.options.plan.isolationBudgetSeconds} s (each waits up to ${settleSeconds} s for ` +
        'the foreign burst to finish).',
    );
  }
  for (const [what, l] of [
    ['after the foreign burst', behindForeign],
    ['alone', alone],
  ] as const) {
    if (l.missed > 0) {
      env.notes.push(
        `Isolation: the owner's update ${what} missed in ${l.missed} of ${l.tries} tries ` +
          `(not applied within ${result.ownerDeadlineSeconds} s); they count as slower than any.`,
      );
    }
  }
  const unsettled = tries.filter((t) => t.foreign.finished < t.foreign.recorded);
  if (unsettled.length > 0) {
    const finished = unsettled.map((t) => t.foreign.finished).join(', ');
    env.notes.push(
      `Isolation: in ${unsettled.length} of ${tries.length} tries the ${foreignEvents} foreign ` +
        `events had not all finished ${settleSeconds} s after their last 202 (finished: ` +
        `${finished}); the tables and queue were emptied and the article made again before the next try.`,
    );
  }
  const failed = tries.filter((t) => t.ownerStatus === 'failed').length;
  if (failed > 0) {
    env.notes.push(`Isolation: the owner's update FAILED in ${failed} tries (counted as missed).`);
  }
  if (result.notRefused > 0) {
    env.notes.push(
      `Isolation: ${result.notRefused} foreign events did NOT fail with ARTICLE_NOT_FOUND: ` +
        "another account's update reached the owner's article, or failed otherwise.",
    );
  }
}
