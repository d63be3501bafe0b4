import { expect } from 'vitest';
import {
  createKey,
  newAccountFields,
  registerAccount,
  type RegisteredAccount,
} from './accounts.js';
import { accept, finalReceipt, uniqueSlug } from './content.js';
import type { TestApi } from './test-api.js';

export type Publisher = RegisteredAccount & { key: string };

/** A publisher with the display name given, and a key that may send every event. */
export async function registerPublisher(api: TestApi, name: string): Promise<Publisher> {
  const account = await registerAccount(api, { ...newAccountFields(api), name });
  const { key } = await createKey(api, account);
  return { ...account, key };
}

/** Sends an event and waits until the worker has applied it; returns its result. */
export async function applied(
  api: TestApi,
  key: string,
  event: string,
  data: unknown,
): Promise<{ id: string; slug?: string }> {
  const receipt = await finalReceipt(api, key, await accept(api, key, event, data));
  expect(receipt.status, JSON.stringify(receipt)).toBe('succeeded');
  return receipt.result as { id: string; slug?: string };
}

/**
 * Creates the articles one at a time, each with a fresh slug, so that creation order is
 * the order lists must show; returns their slugs, oldest first.
 */
export async function createArticles(
  api: TestApi,
  publisher: Publisher,
  articles: Record<string, unknown>[],
): Promise<string[]> {
  const slugs: string[] = [];
  for (const data of articles) {
    const slug = uniqueSlug('reads');
    await applied(api, publisher.key, 'article.create', { ...data, slug });
    slugs.push(slug);
  }
  return slugs;
}

/** GETs a public URL (no credentials) and returns the response. */
export const read = (api: TestApi, url: string) => api.app.inject({ method: 'GET', url });

/** GETs a public URL that must answer 200, and returns its JSON body. */
export async function readOk<Body>(api: TestApi, url: string): Promise<Body> {
  const response = await read(api, url);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Body>();
}

/** The slugs `GET /api/articles?<query>` answers, in order. */
export async function articleSlugs(api: TestApi, query: string): Promise<string[]> {
  const list = await readOk<{ items: { slug: string }[] }>(api, `/api/articles?${query}`);
  return list.items.map((item) => item.slug);
}

export function expectNewestFirst(items: { createdAt: string }[]): void {
  const times = items.map((item) => Date.parse(item.createdAt));
  expect(times).toEqual([...times].sort((a, b) => b - a));
}

export interface Page<Item> {
  items: Item[];
  nextCursor: string | null;
}

/**
 * Follows `nextCursor` from `url` until the last page, or until `enough` says the items
 * so far suffice (the highlight list is shared with other test files, so it may be long).
 */
export async function walkPages<Item>(
  api: TestApi,
  url: string,
  enough: (items: Item[]) => boolean = () => false,
): Promise<{ items: Item[]; pages: Page<Item>[] }> {
  const pages: Page<Item>[] = [];
  let cursor: string | null = null;
  do {
    const separator = url.includes('?') ? '&' : '?';
    const pageUrl: string =
      cursor === null ? url : `${url}${separator}cursor=${encodeURIComponent(cursor)}`;
    const page = await readOk<Page<Item>>(api, pageUrl);
    pages.push(page);
    cursor = page.nextCursor;
    if (pages.length > 200) throw new Error(`${url} did not end after 200 pages`);
  } while (cursor !== null && !enough(pages.flatMap((page) => page.items)));
  return { items: pages.flatMap((page) => page.items), pages };
}
