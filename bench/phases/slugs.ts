// What a slug costs the worker: one worker drains creates that name a unique slug, creates
// without one (each slug derived from its own title, as the specification's publishers
// send them) and creates all titled alike (a bot's daily digest), in turns.
import type { BenchEnvironment } from '../bench-environment.js';
import type { EventMix } from '../support/event-mix.js';
import { drainOnce, meanOf, serviceWorkers, type DrainResult } from './drain.js';

const MIXES = ['creates', 'published', 'one-title'] as const satisfies EventMix[];
const TURNS = 2;

export type SlugsFigures = Record<
  (typeof MIXES)[number],
  { runs: DrainResult[]; mean: DrainResult }
>;

export async function measureSlugs(env: BenchEnvironment): Promise<SlugsFigures> {
  const { slugEvents: events, slugDeadlineSeconds: deadlineSeconds } = env.options.plan;
  env.log(`slugs: ${events} creates queued, one service worker; ${MIXES.join(', ')} in turns`);
  const runs = new Map<EventMix, DrainResult[]>(MIXES.map((mix) => [mix, []]));
  for (let turn = 1; turn <= TURNS; turn += 1) {
    for (const mix of MIXES) {
      const label = `slugs ${mix} (${turn})`;
      const options = { events, deadlineSeconds, mix };
      runs.get(mix)!.push(await drainOnce(env, 'service', label, serviceWorkers(env, 1), options));
    }
  }
  await env.reset();
  const figures = (mix: (typeof MIXES)[number]) => ({
    runs: runs.get(mix)!,
    mean: meanOf(runs.get(mix)!),
  });
  return {
    creates: figures('creates'),
    published: figures('published'),
    'one-title': figures('one-title'),
  };
}
