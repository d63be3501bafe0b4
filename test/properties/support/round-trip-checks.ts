import { ArticleSchema } from '@ingest/contracts';
import { expect } from 'vitest';
import { finalReceipt } from '../../support/content.js';
import type { Publisher } from '../../support/reads-content.js';
import type { TestApi } from '../../support/test-api.js';
import { toJsonText } from './json-text.js';
import { postText } from './raw-requests.js';
import { asSent, type Case } from './round-trip.js';

export interface RoundTripContext {
  api: TestApi;
  publisher: Publisher;
  /**
   * Articles for highlights to link to, one for each highlight in flight: events sharing
   * a slug are applied one after another, which would serialise a batch.
   */
  linkable: { slug: string; id: string }[];
  /** Fresh slugs of refused article.create events: none may ever exist. */
  refusedSlugs: string[];
  /** Events applied so far: the publisher's rows must number exactly these. */
  applied: { articles: number; highlights: number };
}

interface Receipt {
  status: string;
  result?: { id: string; slug?: string };
}

/** POSTs an event with the publisher's key, and `Prefer` when given. */
export const sendEvent = (
  context: RoundTripContext,
  event: string,
  data: unknown,
  prefer?: string,
) =>
  postText(context.api, '/api/webhooks/content', toJsonText({ event, data }), 'application/json', {
    'x-api-key': context.publisher.key,
    ...(prefer === undefined ? {} : { prefer }),
  });

/**
 * Sends an event with `Prefer: wait` and returns its final receipt: the answer itself
 * when the worker finished in time, else the receipt polled until it is final.
 */
export async function applyEvent(
  context: RoundTripContext,
  event: string,
  data: unknown,
): Promise<Receipt> {
  const answer = await sendEvent(context, event, data, 'wait=25');
  expect([200, 202], answer.body).toContain(answer.statusCode);
  if (answer.statusCode === 200) return answer.json<Receipt>();
  const { id } = answer.json<{ id: string }>();
  return finalReceipt(context.api, context.publisher.key, id, 60_000);
}

/** Sends data the API must refuse, and notes its fresh slug, if any, to look for later. */
async function sendRefused(context: RoundTripContext, event: string, data: unknown) {
  const answer = await sendEvent(context, event, data);
  expect([400, 413], answer.body).toContain(answer.statusCode);
  // Only fresh slugs are noted: a hostile one (NUL and all) could not be looked up.
  const slug = (data as { slug?: unknown } | null)?.slug;
  if (typeof slug === 'string' && slug.startsWith(`rt-${context.api.tag}-`)) {
    context.refusedSlugs.push(slug);
  }
}

/** Applies a valid article.create, refuses its sibling, and reads the article back. */
export async function checkArticleRoundTrip(context: RoundTripContext, { sent, refused }: Case) {
  await sendRefused(context, 'article.create', refused);
  const receipt = await applyEvent(context, 'article.create', sent);
  expect(receipt.status, JSON.stringify(receipt)).toBe('succeeded');
  context.applied.articles += 1;

  const expected = asSent<Record<string, unknown>>(sent);
  const read = await context.api.app.inject({
    method: 'GET',
    url: `/api/articles/${String(expected.slug)}`,
  });
  expect(read.statusCode, read.body).toBe(200);
  const article = ArticleSchema.parse(read.json());
  expect(article).toMatchObject({
    slug: expected.slug,
    title: expected.title,
    body: expected.body,
    excerpt: expected.excerpt ?? null,
    cover: expected.cover ?? null,
    // Its first use (the name is unique to the run), so the category keeps this spelling.
    category: typeof expected.category === 'string' ? expected.category.trim() : null,
    author: { handle: context.publisher.handle },
  });
  // Without readMinutes, the worker computes one (checked by ArticleSchema: an integer).
  if (expected.readMinutes !== undefined) expect(article.readMinutes).toBe(expected.readMinutes);
}

/**
 * Applies a valid highlight.create, linked to `linked` when it names an article, refuses
 * its sibling, and reads the stored row.
 */
export async function checkHighlightRoundTrip(
  context: RoundTripContext,
  { sent: generated, refused }: Case,
  linked: { slug: string; id: string },
) {
  const sent =
    generated.articleSlug === undefined ? generated : { ...generated, articleSlug: linked.slug };
  await sendRefused(context, 'highlight.create', refused);
  const receipt = await applyEvent(context, 'highlight.create', sent);
  expect(receipt.status, JSON.stringify(receipt)).toBe('succeeded');
  context.applied.highlights += 1;

  const expected = asSent<Record<string, unknown>>(sent);
  const row = await context.api.deps.db.prisma.highlight.findUnique({
    where: { id: receipt.result?.id ?? '' },
  });
  expect(row).toMatchObject({
    accountId: context.publisher.id,
    articleId: expected.articleSlug === undefined ? null : linked.id,
    title: expected.title,
    videoUrl: expected.videoUrl,
    thumbnailUrl: expected.thumbnailUrl ?? null,
    durationSeconds: expected.durationSeconds ?? null,
    description: expected.description ?? null,
    tags: expected.tags ?? [],
  });
}

/** Once every event is finished: no refused event left a row; applied ones left theirs. */
export async function expectOnlyAppliedRows(context: RoundTripContext): Promise<void> {
  const { api, publisher, applied, refusedSlugs } = context;
  const { prisma } = api.deps.db;
  const where = { accountId: publisher.id };
  // Every accepted event was waited for; refused ones are recorded `rejected`, final.
  const unfinished = { ...where, status: { in: ['queued', 'processing'] } };
  await expect.poll(() => prisma.webhookLog.count({ where: unfinished })).toBe(0);
  expect(await prisma.article.count({ where: { slug: { in: refusedSlugs } } })).toBe(0);
  expect(await prisma.article.count({ where })).toBe(applied.articles);
  expect(await prisma.highlight.count({ where })).toBe(applied.highlights);
}
