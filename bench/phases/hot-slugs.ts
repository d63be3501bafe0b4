// Per-slug ordering: one account sends bursts of article.update about a few hot slugs, as
// fast as the API answers, with one worker running; how fast each slug's updates are
// applied, and whether in acceptance order. Reference: the same burst spread over as many
// distinct articles (nothing orders them), just before, with the same worker. The floor
// has no ordering, so the service is its own reference. Then isolation (isolation.ts).
import type { BenchEnvironment } from '../bench-environment.js';
import type { HotSlugBurst } from '../bench-options.js';
import { describeCpu, type CpuUse } from '../support/cpu-meter.js';
import type { BenchKey } from '../support/event-mix.js';
import { burstName, fineRate, ms, statusSummary } from '../support/format.js';
import { startServiceWorker, type RunningHttp } from '../support/launchers.js';
import {
  lastSequence,
  orderViolations,
  slugProgress,
  updateLag,
  type EventScope,
  type OrderViolations,
  type SlugProgress,
  type UpdateLag,
} from '../support/order-queries.js';
import {
  createArticles,
  keysByAccount,
  sendBurst,
  updateStream,
  waitUntilFinished,
} from '../support/slug-events.js';
import { measureIsolation, type IsolationResult } from './isolation.js';

export interface BurstFigures {
  /** Updates answered 202. */
  accepted: number;
  /** Updates finished by the deadline (succeeded or failed). */
  applied: number;
  complete: boolean;
  /** Applied a second, all slugs together: applied / (last applied - first received). */
  rate: number;
  lag: UpdateLag;
  cpu: CpuUse;
}

export interface HotSlugResult {
  slugs: number;
  updatesPerSlug: number;
  deadlineSeconds: number;
  hot: BurstFigures & {
    /** Per slug, applied / (its last applied - its first received): median and slowest. */
    perSlugRate: { median: number; min: number };
    /** Longest, over slugs, from the last update received to it applied; NaN if one missed. */
    catchUpMs: number;
    violations: OrderViolations;
  };
  /** As many updates, one each of distinct articles. */
  reference: BurstFigures;
}

export interface HotSlugsResult {
  bursts: HotSlugResult[];
  isolation: IsolationResult;
}

const spanSeconds = (from: number, to: number) => Math.max(to - from, 1) / 1000;

function rateOf(slugs: SlugProgress[]): number {
  const applied = slugs.reduce((sum, s) => sum + s.applied, 0);
  if (applied === 0) return 0;
  const first = Math.min(...slugs.map((s) => s.firstReceived));
  const last = Math.max(...slugs.filter((s) => s.applied > 0).map((s) => s.lastFinished));
  return applied / spanSeconds(first, last);
}

const median = (sorted: number[]) => sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;

/**
 * Sends `amount` updates round robin over `slugs` and waits until all are applied or
 * the deadline (from the last 202) passes; figures are as of that moment (the cutoff).
 */
async function burst(
  env: BenchEnvironment,
  worker: RunningHttp,
  owner: BenchKey[],
  slugs: string[],
  amount: number,
  titlePrefix: string,
) {
  const scope: EventScope = {
    after: await lastSequence(env.db),
    accountId: owner[0]?.accountId ?? '',
  };
  const meter = await env.cpuMeter([
    { name: 'api', pid: env.api.proc.pid },
    { name: 'worker', pid: worker.proc.pid },
  ]);
  const load = await sendBurst(env, updateStream(owner, slugs, titlePrefix), amount);
  const deadline = Date.now() + env.options.plan.hotSlugDeadlineSeconds * 1000;
  await waitUntilFinished(env, scope, load.acceptedTotal, deadline);
  const cutoff = new Date();
  const cpu = await meter.stop();
  const progress = await slugProgress(env.db, scope, cutoff);
  const applied = progress.reduce((sum, s) => sum + s.applied, 0);
  const figures: BurstFigures = {
    accepted: load.acceptedTotal,
    applied,
    complete: applied >= load.acceptedTotal,
    rate: rateOf(progress),
    lag: await updateLag(env.db, scope, cutoff),
    cpu,
  };
  const sent =
    `${amount} updates sent in ${load.elapsedSeconds.toFixed(1)} s ` +
    `(${statusSummary(load.byStatus)}), ${applied} applied within ` +
    `${env.options.plan.hotSlugDeadlineSeconds} s of the last 202`;
  return { scope, progress, figures, sent };
}

async function hotSlugs(
  env: BenchEnvironment,
  owner: BenchKey[],
  { slugs: count, updatesPerSlug }: HotSlugBurst,
): Promise<HotSlugResult> {
  const { hotSlugDeadlineSeconds } = env.options.plan;
  const label = `×${count}`;
  const amount = count * updatesPerSlug;
  await env.reset();
  const worker = await startServiceWorker(env.processes, env.stores, env.options.cpuProfile);
  try {
    const tag = env.tag('hot');
    const hot = Array.from({ length: count }, (_, i) => `${tag}-h${i + 1}`);
    const distinct = Array.from({ length: amount }, (_, i) => `${tag}-d${i + 1}`);
    // Both sets at once, before either burst: the worker is warm and the tables hold the
    // same rows for both.
    const created = await createArticles(env, owner, tag, [...hot, ...distinct]);
    env.log(
      `  ${label}: ${hot.length + distinct.length} articles created in ${created.toFixed(1)} s`,
    );

    const ref = await burst(env, worker, owner, distinct, amount, 'r');
    const reference = ref.figures;
    env.log(
      `  ${label} reference, distinct articles: ${ref.sent}; ${fineRate(reference.rate)}, ` +
        `lag p50 ${ms(reference.lag.p50Ms)} p99 ${ms(reference.lag.p99Ms)} ms\n` +
        `      ${describeCpu(reference.cpu)}`,
    );

    const run = await burst(env, worker, owner, hot, amount, 'u');
    // Nothing may change while order is checked: the worker stops first.
    await worker.proc.stop();
    const violations = await orderViolations(env.db, run.scope);
    const rates = run.progress
      .map((s) => (s.applied > 0 ? s.applied / spanSeconds(s.firstReceived, s.lastFinished) : 0))
      .sort((a, b) => a - b);
    const allApplied = run.progress.every((s) => s.applied >= s.accepted);
    const result: HotSlugResult = {
      slugs: count,
      updatesPerSlug,
      deadlineSeconds: hotSlugDeadlineSeconds,
      hot: {
        ...run.figures,
        perSlugRate: { median: median(rates), min: rates[0] ?? Number.NaN },
        catchUpMs: allApplied
          ? Math.max(...run.progress.map((s) => s.lastFinished - s.lastReceived))
          : Number.NaN,
        violations,
      },
      reference,
    };
    const { hot: h } = result;
    const wrong = violations.outOfOrder + violations.failed + violations.wrongTitle;
    env.log(
      `  ${label} hot, ${updatesPerSlug} updates a slug: ${run.sent}; per slug ` +
        `${fineRate(h.perSlugRate.median)} median, ${fineRate(h.perSlugRate.min)} slowest; ` +
        `catch-up ${allApplied ? `${ms(h.catchUpMs)} ms` : 'missed'}; ` +
        `lag p50 ${ms(h.lag.p50Ms)} p99 ${ms(h.lag.p99Ms)} ms; order violations ${wrong}\n` +
        `      ${describeCpu(h.cpu)}`,
    );
    notesOf(env, result);
    return result;
  } finally {
    await worker.proc.stop();
  }
}

function notesOf(env: BenchEnvironment, { slugs, hot, reference, deadlineSeconds }: HotSlugResult) {
  const name = burstName(slugs);
  if (!hot.complete) {
    env.notes.push(
      `${name}: ${hot.applied} of ${hot.accepted} updates applied within ` +
        `${deadlineSeconds} s of the last 202; the rates are over those, the lag leaves the ` +
        'others out (so understates it), and catch-up is missed.',
    );
  }
  if (!reference.complete) {
    env.notes.push(
      `${name} reference: ${reference.applied} of ${reference.accepted} updates of ` +
        `distinct articles applied within ${deadlineSeconds} s; its rate is over those.`,
    );
  }
  const { outOfOrder, failed, wrongTitle } = hot.violations;
  if (outOfOrder + failed + wrongTitle > 0) {
    env.notes.push(
      `${name}: ORDER BROKEN: ${outOfOrder} updates applied before an earlier one of ` +
        `their slug, ${failed} failed, ${wrongTitle} articles not left with their last ` +
        "applied update's title.",
    );
  }
}

export async function measureHotSlugs(env: BenchEnvironment): Promise<HotSlugsResult> {
  const { hotSlugBursts, hotSlugDeadlineSeconds } = env.options.plan;
  const [owner, foreigner] = keysByAccount(env.keys);
  if (owner === undefined || foreigner === undefined) {
    throw new Error('hot-slugs needs keys of two accounts');
  }
  env.log(
    `hot-slugs: one account's article.update bursts over ${hotSlugBursts.map((b) => b.slugs).join(', ')} ` +
      `hot slugs, one worker, ${hotSlugDeadlineSeconds} s to apply them after the last 202; ` +
      'reference: the same burst over distinct articles',
  );
  const bursts: HotSlugResult[] = [];
  for (const plan of hotSlugBursts) bursts.push(await hotSlugs(env, owner, plan));
  env.notes.push(
    'Hot slugs: each burst has its own reference, measured just before it with the same ' +
      'worker: as many updates, one each of distinct articles created the same way.',
  );
  const isolation = await measureIsolation(env, owner, foreigner);
  await env.reset();
  return { bursts, isolation };
}
