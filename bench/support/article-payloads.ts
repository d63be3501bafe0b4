// Realistic `article.create` bodies, about 2 KB each: a title, 4-6 paragraphs of prose,
// an excerpt, a category and a slug unique to the run. Paragraphs come from a pool made
// once at start-up, so the load generator spends its time sending, not composing.

import { seededRandom } from '@ingest/test-harness';

const WORDS = (
  'the a of and to in for on with as by at from about after before under over between ' +
  'city council budget school river bridge market station harbour museum library garden ' +
  'season match player coach league final goal record crowd stadium ticket weather storm ' +
  'report study data energy price policy vote election minister plan project company ' +
  'worker union contract village festival music artist gallery film review book author ' +
  'morning evening weekend summer winter new old first last local national public private ' +
  'said announced confirmed expected opened closed rose fell reached delayed approved'
).split(' ');

const CATEGORIES = [
  'News',
  'Sport',
  'Culture',
  'Business',
  'Science',
  'Local',
  'Opinion',
  'Travel',
];

function sentence(random: () => number, words: number): string {
  const picked = Array.from({ length: words }, () => WORDS[Math.floor(random() * WORDS.length)]);
  const text = picked.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

const random = seededRandom(20261121);
// About 300-360 characters each.
const PARAGRAPHS = Array.from({ length: 256 }, () =>
  Array.from({ length: 5 }, () => sentence(random, 9 + Math.floor(random() * 4))).join(' '),
);

export interface ArticleCreate {
  title: string;
  body: string[];
  excerpt: string;
  category: string;
  slug: string;
}

/** The `n`-th article of a run: `slug` is unique per (runTag, n). */
export function articleCreate(runTag: string, n: number): ArticleCreate {
  const count = 4 + (n % 3);
  const body = Array.from(
    { length: count },
    (_, i) => PARAGRAPHS[(n * 7 + i * 31) % PARAGRAPHS.length] ?? '',
  );
  return {
    title: `${sentence(random, 6).slice(0, -1)} ${n}`,
    body,
    excerpt: body[0]?.slice(0, 160) ?? '',
    category: CATEGORIES[n % CATEGORIES.length] ?? 'News',
    slug: `${runTag}-${n}`,
  };
}

/**
 * A start of an excerpt (a first word and its space) that about `share` of the bench's
 * articles have, and the share they have. Each excerpt is one of the paragraphs, and
 * `articleCreate` gives each of them as often (n * 7 runs through every residue of 256):
 * a filter over it passes a known share of the messages the workload makes, where no
 * field of the workload is shared by so few (8 categories, unique slugs).
 */
export function excerptStartFor(share: number): { start: string; share: number } {
  const counts = new Map<string, number>();
  for (const paragraph of PARAGRAPHS) {
    const start = paragraph.slice(0, paragraph.indexOf(' ') + 1);
    counts.set(start, (counts.get(start) ?? 0) + 1);
  }
  const wanted = share * PARAGRAPHS.length;
  let best = { start: '', count: 0 };
  for (const [start, count] of counts) {
    if (Math.abs(count - wanted) < Math.abs(best.count - wanted)) best = { start, count };
  }
  return { start: best.start, share: best.count / PARAGRAPHS.length };
}
