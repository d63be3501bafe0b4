// Events about chosen slugs, for the hot-slugs phase: the articles an account creates
// beforehand, bursts of updates naming them, and a single update sent on its own. Each
// update's title says which one it was (`u17`: the 17th sent for its slug), so that an
// article's final title tells which update was applied last.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchEnvironment } from '../bench-environment.js';
import { articleCreate } from './article-payloads.js';
import type { BenchKey, OutgoingRequest, RequestStream } from './event-mix.js';
import { runAmount } from './fixed-rate-load.js';
import { eventCounts, lastSequence, type EventCounts, type EventScope } from './order-queries.js';
import { contentUrl } from './launchers.js';

/** As the other phases fill queues: enough to keep the API busy, not to shed load. */
export const BURST_CONNECTIONS = 64;
const POLL_MS = 200;

/** Every key of each account, accounts in the order their keys first appear. */
export function keysByAccount(keys: BenchKey[]): BenchKey[][] {
  const accounts = new Map<string, BenchKey[]>();
  for (const key of keys)
    accounts.set(key.accountId, [...(accounts.get(key.accountId) ?? []), key]);
  return [...accounts.values()];
}

/** The `i`-th key, round robin. */
export function keyAt(keys: BenchKey[], i: number): BenchKey {
  const key = keys[i % keys.length];
  if (key === undefined) throw new Error('no API keys');
  return key;
}

const request = (keys: BenchKey[], i: number, event: unknown): OutgoingRequest => ({
  apiKey: keys[i % keys.length]?.key ?? '',
  body: JSON.stringify(event),
});

/**
 * `article.update` events round robin over `slugs`, each setting `title` to
 * `<prefix><k>`, k counting the updates sent for that slug from 1; round robin over
 * `keys` too (one account's keys: the account the slugs are checked against).
 */
export function updateStream(keys: BenchKey[], slugs: string[], prefix: string): RequestStream {
  const sent = new Map<string, number>();
  let n = 0;
  return {
    next() {
      const slug = slugs[n % slugs.length] ?? '';
      const k = (sent.get(slug) ?? 0) + 1;
      sent.set(slug, k);
      n += 1;
      return request(keys, n, { event: 'article.update', data: { slug, title: `${prefix}${k}` } });
    },
  };
}

/** One `article.create` a slug, with the slug given: the bench names them in what follows. */
function createStream(keys: BenchKey[], runTag: string, slugs: string[]): RequestStream {
  let n = 0;
  return {
    next() {
      const slug = slugs[n % slugs.length] ?? '';
      n += 1;
      return request(keys, n, {
        event: 'article.create',
        data: { ...articleCreate(runTag, n), slug },
      });
    },
  };
}

/** Sends `amount` events from `stream` as fast as the API answers. */
export function sendBurst(env: BenchEnvironment, stream: RequestStream, amount: number) {
  const url = contentUrl(env.api);
  return runAmount(url, stream, amount, Math.min(BURST_CONNECTIONS, amount));
}

/** Generous for a few thousand creates of distinct slugs, which no ordering holds back. */
const CREATE_DEADLINE_MS = 60_000;

/**
 * Creates one article per slug as `keys`' account (a worker must be running) and waits
 * until every create is applied. Throws otherwise: what follows needs the articles.
 * Resolves with the seconds it took.
 */
export async function createArticles(
  env: BenchEnvironment,
  keys: BenchKey[],
  runTag: string,
  slugs: string[],
): Promise<number> {
  const started = performance.now();
  const scope = { after: await lastSequence(env.db), accountId: keys[0]?.accountId ?? '' };
  const load = await sendBurst(env, createStream(keys, runTag, slugs), slugs.length);
  if (load.acceptedTotal !== slugs.length) {
    throw new Error(
      `hot-slugs: only ${load.acceptedTotal} of ${slugs.length} creates answered 202`,
    );
  }
  const counts = await waitUntilFinished(env, scope, slugs.length, Date.now() + CREATE_DEADLINE_MS);
  if (counts.finished < slugs.length || counts.failed > 0) {
    throw new Error(
      `hot-slugs: of ${slugs.length} article creates, ${counts.finished} finished ` +
        `(${counts.failed} failed) within ${CREATE_DEADLINE_MS / 1000} s`,
    );
  }
  return (performance.now() - started) / 1000;
}

/** One `article.update` of `slug` on its own; resolves with the event's id once accepted. */
export async function sendUpdate(
  env: BenchEnvironment,
  key: BenchKey,
  slug: string,
  title: string,
): Promise<string> {
  const response = await fetch(contentUrl(env.api), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key.key },
    body: JSON.stringify({ event: 'article.update', data: { slug, title } }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status !== 202) {
    throw new Error(
      `hot-slugs: update of ${slug} answered ${response.status} ${text.slice(0, 300)}`,
    );
  }
  return String((JSON.parse(text) as { id: unknown }).id);
}

/**
 * Polls until `expected` events of the scope are finished (succeeded or failed), the
 * deadline (epoch ms) passes, or a process the bench started dies. Resolves with the
 * last counts; the caller reports what did not finish.
 */
export async function waitUntilFinished(
  env: BenchEnvironment,
  scope: EventScope,
  expected: number,
  deadline: number,
): Promise<EventCounts> {
  for (;;) {
    env.processes.assertNoCrash();
    const counts = await eventCounts(env.db, scope);
    if (counts.finished >= expected || Date.now() >= deadline) return counts;
    await sleep(POLL_MS);
  }
}
