// Fairness (c): a noisy account and a quiet one on the same service, at the shipped
// defaults (an API with the service's own content rate limit, one worker).
//
// The noisy account has a backlog of `backlog` updates of its articles, keeps publishing
// at its rate limit and polls its receipts in a closed loop, both from a process of its
// own. The quiet account publishes one article.create a second with `Prefer: wait` and
// reads its receipt, from the runner, first alone (idle) and then while the backlog
// drains (contest). Its articles table is the same size in both: the noisy account's
// articles are seeded before the idle window (an update's target must exist).
import { setTimeout as sleep } from 'node:timers/promises';
import { createPublisher, fetchClient, newAccountFields } from '@ingest/test-harness';
import { Queue } from 'bullmq';
import type { BenchEnvironment } from '../bench-environment.js';
import type { FairnessNeighboursPlan as NeighboursPlan } from '../bench-options.js';
import { articleCreate } from './article-payloads.js';
import { runAmount } from './fixed-rate-load.js';
import { statusSummary } from './format.js';
import {
  contentUrl,
  SERVICE_REDIS_PREFIX,
  startApi,
  startServiceWorker,
  type RunningHttp,
} from './launchers.js';
import { runLoadChild, type LoadOutcome } from './load-children.js';
import { accountEventCount } from './progress-queries.js';
import { percentile, sortedSamples, spreadMs } from './percentiles.js';

export interface QuietWindow {
  calls: number;
  /** Publish to applied, as the quiet publisher saw it (Prefer: wait answered 200). */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** 429 or 503, publishes and receipt reads together: the target is none. */
  refused: number;
  /** Any other answer than the one expected (200 to both). */
  other: Record<string, number>;
  readP99Ms: number;
  /** From the database: accepted to claimed (queue, fetch, claim), claimed to applied. */
  stagesMs: { toClaimP50: number; toClaimP99: number; toApplyP50: number; toApplyP99: number };
}

export interface NeighboursResult {
  plan: NeighboursPlan;
  idle: QuietWindow;
  contest: QuietWindow;
  /** The noisy account's events applied a second, alone and while the quiet one publishes. */
  noisyAlonePerSecond: number;
  noisyContestPerSecond: number;
  /** Its backlog left when the contest ended: 0 would mean the contest outlasted it. */
  noisyLeftAtEnd: number;
  noisyPublish: LoadOutcome;
  noisyPoll: LoadOutcome;
}

const WAIT_SECONDS = 10;
const WARMUP_CALLS = 3;
const FILL_CONNECTIONS = 64;

async function publisher(env: BenchEnvironment, name: string, keys: number) {
  const made = await createPublisher(
    fetchClient(env.api.baseUrl),
    newAccountFields('bench.example', name),
    keys,
  );
  return { id: made.id, keys: made.apiKeys };
}

/** The noisy account's articles, made in one statement: updates need them to exist. */
async function seedArticles(env: BenchEnvironment, accountId: string, slugs: string[]) {
  await env.db.query(
    `INSERT INTO articles (id, slug, account_id, title, body, read_minutes, read_minutes_computed)
     SELECT gen_random_uuid(), s, $1, 'Seeded ' || s, ARRAY['Seeded body.'], 3, false
     FROM unnest($2::text[]) AS s`,
    [accountId, slugs],
  );
}

const finishedOf = (env: BenchEnvironment, accountId: string) =>
  accountEventCount(env.db, accountId, ['succeeded', 'failed']);
const unfinishedOf = (env: BenchEnvironment, accountId: string) =>
  accountEventCount(env.db, accountId, ['queued', 'processing']);

/** One article.create a second with Prefer: wait, then a read of its receipt. */
async function quietWindow(
  env: BenchEnvironment,
  api: RunningHttp,
  quiet: { id: string; key: string },
  seconds: number,
): Promise<QuietWindow> {
  const { key } = quiet;
  const tag = env.tag('quiet');
  const publishes: number[] = [];
  const reads: number[] = [];
  const other = new Map<string, number>();
  let refused = 0;
  const note = (what: string, status: number) => {
    if (status === 429 || status === 503) refused += 1;
    else if (status !== 200)
      other.set(`${what} ${status}`, (other.get(`${what} ${status}`) ?? 0) + 1);
  };
  const started = performance.now();
  const since = new Date();
  for (let n = 0; n < seconds; n += 1) {
    await sleep(Math.max(0, started + n * 1000 - performance.now()));
    const sent = performance.now();
    const response = await fetch(contentUrl(api), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': key,
        prefer: `wait=${WAIT_SECONDS}`,
      },
      body: JSON.stringify({ event: 'article.create', data: articleCreate(tag, n) }),
    });
    const body = (await response.json()) as { id?: string };
    publishes.push(performance.now() - sent);
    note('publish', response.status);
    if (body.id === undefined) continue;
    const readSent = performance.now();
    const read = await fetch(`${contentUrl(api)}/${body.id}`, { headers: { 'x-api-key': key } });
    await read.arrayBuffer();
    reads.push(performance.now() - readSent);
    note('read', read.status);
  }
  const sorted = sortedSamples(publishes);
  const { rows } = await env.db.query<{
    c50: number;
    c99: number;
    a50: number;
    a99: number;
  }>(
    `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY claim) AS c50,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY claim) AS c99,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY apply) AS a50,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY apply) AS a99
     FROM (SELECT extract(epoch FROM started_at - received_at) * 1000 AS claim,
                  extract(epoch FROM finished_at - started_at) * 1000 AS apply
           FROM webhook_logs
           WHERE account_id = $1 AND received_at >= $2 AND status = 'succeeded') AS stages`,
    [quiet.id, since],
  );
  const stages = rows[0];
  return {
    calls: publishes.length,
    ...spreadMs(sorted),
    refused,
    other: Object.fromEntries(other),
    readP99Ms: percentile(sortedSamples(reads), 0.99),
    stagesMs: {
      toClaimP50: stages?.c50 ?? Number.NaN,
      toClaimP99: stages?.c99 ?? Number.NaN,
      toApplyP50: stages?.a50 ?? Number.NaN,
      toApplyP99: stages?.a99 ?? Number.NaN,
    },
  };
}

const describeWindow = (name: string, w: QuietWindow) =>
  `  quiet ${name}: ${w.calls} publishes p50 ${w.p50Ms.toFixed(1)} p99 ${w.p99Ms.toFixed(1)} ` +
  `max ${w.maxMs.toFixed(1)} ms, reads p99 ${w.readP99Ms.toFixed(1)} ms, ${w.refused} refused; ` +
  `accepted to claimed p50/p99 ${w.stagesMs.toClaimP50.toFixed(1)}/${w.stagesMs.toClaimP99.toFixed(1)} ms, ` +
  `claimed to applied ${w.stagesMs.toApplyP50.toFixed(1)}/${w.stagesMs.toApplyP99.toFixed(1)} ms` +
  `${Object.keys(w.other).length > 0 ? `, other ${JSON.stringify(w.other)}` : ''}`;

export async function measureNeighbours(
  env: BenchEnvironment,
  plan: NeighboursPlan,
): Promise<NeighboursResult> {
  const noisy = await publisher(env, 'noisy', 4);
  const quiet = await publisher(env, 'quiet', 1);
  const quietPublisher = { id: quiet.id, key: quiet.keys[0] ?? '' };
  const steadySeconds = plan.aloneSeconds + plan.contestSeconds;
  const tag = env.tag('noisy');
  const slugs = Array.from(
    { length: plan.backlog + Math.ceil(plan.noisyRate * (steadySeconds + 5)) },
    (_, i) => `${tag}-${i}`,
  );
  await seedArticles(env, noisy.id, slugs);
  const api = await startApi(env.processes, env.stores, false, undefined, {
    shippedLimits: true,
    name: 'api-defaults',
  });
  const worker = await startServiceWorker(env.processes, env.stores, false);
  const queue = new Queue('content-events', {
    connection: { host: '127.0.0.1', port: env.redis.port },
    prefix: `${SERVICE_REDIS_PREFIX}:bull`,
  });
  try {
    env.log(`  seeded ${slugs.length} articles of the noisy account; idle window`);
    // Not counted: the first calls of the API and the worker pay for JIT and pools.
    await quietWindow(env, api, quietPublisher, WARMUP_CALLS);
    const idle = await quietWindow(env, api, quietPublisher, plan.idleSeconds);
    env.log(describeWindow('idle', idle));

    // The backlog, queued through the bench's own API (its limit out of reach) while the
    // queue is paused: what a bulk import leaves behind.
    await queue.pause();
    let n = 0;
    const backlogStream = {
      next() {
        const slug = slugs[n] ?? '';
        n += 1;
        return {
          apiKey: noisy.keys[n % noisy.keys.length] ?? '',
          body: JSON.stringify({ event: 'article.update', data: { slug, title: `Imported ${n}` } }),
        };
      },
    };
    const fill = await runAmount(
      contentUrl(env.api),
      backlogStream,
      plan.backlog,
      FILL_CONNECTIONS,
    );
    env.log(
      `  noisy backlog: ${fill.byStatus['202'] ?? 0} updates queued in ${fill.elapsedSeconds.toFixed(1)} s ` +
        statusSummary(fill.byStatus),
    );
    const { rows } = await env.db.query<{ id: string }>(
      'SELECT id FROM webhook_logs WHERE account_id = $1 LIMIT 1',
      [noisy.id],
    );
    const polled = rows[0]?.id ?? '';

    const publishing = runLoadChild({
      kind: 'update',
      url: contentUrl(api),
      apiKeys: noisy.keys,
      slugs: { prefix: tag, first: plan.backlog, count: slugs.length - plan.backlog },
      rate: plan.noisyRate,
      seconds: steadySeconds,
      connections: 32,
    });
    const polling = runLoadChild({
      kind: 'poll',
      url: `${contentUrl(api)}/${polled}`,
      apiKey: noisy.keys[0] ?? '',
      connections: plan.noisyPollConnections,
      seconds: steadySeconds,
    });
    // Awaited after the windows; observed now, so that a child that cannot start fails
    // the phase through its clean-up rather than as an unhandled rejection.
    for (const child of [publishing, polling]) child.catch(() => undefined);
    // The children take a moment to start (tsx): the windows begin once they run.
    await sleep(1_500);
    await queue.resume();
    const atResume = await finishedOf(env, noisy.id);
    await sleep(plan.aloneSeconds * 1000);
    const afterAlone = await finishedOf(env, noisy.id);
    const contestStarted = performance.now();
    const contest = await quietWindow(env, api, quietPublisher, plan.contestSeconds);
    const contestSeconds = (performance.now() - contestStarted) / 1000;
    const afterContest = await finishedOf(env, noisy.id);
    const left = await unfinishedOf(env, noisy.id);
    env.log(describeWindow('contest', contest));
    const [noisyPublish, noisyPoll] = await Promise.all([publishing, polling]);
    const result: NeighboursResult = {
      plan,
      idle,
      contest,
      noisyAlonePerSecond: (afterAlone - atResume) / plan.aloneSeconds,
      noisyContestPerSecond: (afterContest - afterAlone) / contestSeconds,
      noisyLeftAtEnd: left,
      noisyPublish,
      noisyPoll,
    };
    env.log(
      `  noisy applied ${Math.round(result.noisyAlonePerSecond)}/s alone, ` +
        `${Math.round(result.noisyContestPerSecond)}/s in the contest, ${left} left; ` +
        `its publishing ${statusSummary(noisyPublish.byStatus)}, polling ${Math.round(noisyPoll.perSecond)}/s ` +
        statusSummary(noisyPoll.byStatus),
    );
    if (left === 0) {
      env.notes.push(
        'Fairness (c): the noisy backlog was gone before the contest ended; its figures are over less than the window.',
      );
    }
    return result;
  } finally {
    await queue.resume().catch(() => undefined);
    await queue.close();
    await worker.proc.stop();
    await api.proc.stop();
    await env.reset();
  }
}
