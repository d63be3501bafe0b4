import { DEFAULT_CONTENT_LIMITS } from '@ingest/contracts';
import { EVENT_TYPE_LIST } from '@ingest/events';
import type { TestApi } from '../../support/test-api.js';

// Categories belong to no account and outlive their articles, so deleting a test's
// accounts leaves them behind. And events accepted in a file without a worker are still
// applied: every worker's outbox reconciler (other test files run workers) queues every
// recorded event. So each valid category these properties send carries the file's mark,
// and the file deletes the categories bearing it when it is done.

const [articleCreate] = EVENT_TYPE_LIST;
const categorySchema = articleCreate.dataSchema(DEFAULT_CONTENT_LIMITS).shape.category.unwrap();

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A mark unique to one test API, short enough to fit in a 64-character category. */
export const categoryMark = (api: TestApi): string => `~${api.tag}`;

/**
 * `category` carrying `mark`, at the same length when it is long enough, so that a
 * category at the bound stays at the bound. Stays valid: a cut pair is mended.
 */
function marked(category: string, mark: string): string {
  if (category.includes(mark)) return category;
  if (category.length < mark.length) return `${category}${mark}`;
  const kept = category.slice(0, category.length - mark.length);
  return `${kept.isWellFormed() ? kept : `${kept.slice(0, -1)}x`}${mark}`;
}

/** The body with its `data.category` marked, when that category is one the API accepts. */
export function markCategory(body: unknown, mark: string): unknown {
  if (!isObject(body) || !isObject(body.data)) return body;
  const { category } = body.data;
  if (typeof category !== 'string' || !categorySchema.safeParse(category).success) return body;
  // Spreading defines properties, so a `__proto__` key in the body stays a key.
  return { ...body, data: { ...body.data, category: marked(category, mark) } };
}

/** Deletes the categories this file's events created (its articles lose them first). */
export async function deleteMarkedCategories(api: TestApi, mark: string): Promise<void> {
  await api.deps.db.prisma.category.deleteMany({ where: { name: { contains: mark } } });
}
