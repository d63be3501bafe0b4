// Drain with a million articles stored, against the same drain on an empty articles
// table, in one run: the worker's cost per event must not grow with the content. The
// events are the `titled` mix (support/event-mix.ts): one create in four derives its
// slug from a title other articles share. The empty side runs before and after the
// populated one, so that drift of the shared disk shows as their spread.
import type { BenchEnvironment } from '../bench-environment.js';
import { storeArticles } from '../support/stored-articles.js';
import { drainOnce, serviceWorkers, type DrainResult } from './drain.js';

export interface StoredArticlesResult {
  articles: number;
  seedSeconds: number;
  emptyBefore: DrainResult;
  stored: DrainResult;
  emptyAfter: DrainResult;
}

export async function measureStoredArticles(env: BenchEnvironment): Promise<StoredArticlesResult> {
  const articles = env.options.plan.storedArticles;
  env.log(
    `stored articles: drains of ${env.options.plan.drainEvents} events, one create in four ` +
      `titled, on an empty articles table and with ${articles} articles stored`,
  );
  const drain = (label: string, prepare?: () => Promise<void>) =>
    drainOnce(env, 'service', label, serviceWorkers(env, 1), {
      mix: 'titled',
      ...(prepare ? { prepare } : {}),
    });
  const emptyBefore = await drain('empty, before');
  let seedSeconds = 0;
  const stored = await drain(`${articles} articles stored`, async () => {
    const accountIds = [...new Set(env.keys.map((key) => key.accountId))];
    ({ seconds: seedSeconds } = await storeArticles(env.db, accountIds, articles));
    env.log(`  stored ${articles} articles in ${seedSeconds.toFixed(1)} s (then VACUUM ANALYZE)`);
  });
  const emptyAfter = await drain('empty, after');
  await env.reset();
  return { articles, seedSeconds, emptyBefore, stored, emptyAfter };
}
