import { randomBytes } from 'node:crypto';
import type {
  Article,
  ArticleList,
  ArticleSummary,
  CategoryList,
  Highlight,
} from '@ingest/contracts';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articleData, uniqueSlug } from './support/content.js';
import { expectProblem } from './support/problems.js';
import {
  applied,
  articleSlugs,
  createArticles,
  expectNewestFirst,
  read,
  readOk,
  registerPublisher,
  walkPages,
  type Publisher,
} from './support/reads-content.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

// The database is shared with test files running in parallel: every name here is
// unique to this run, and assertions look only at this file's own rows.
const suffix = randomBytes(4).toString('hex');
const category = `Reads ${suffix}`;
const otherCategory = `other ${suffix}`;
const UNICODE = 'Crème brûlée — 日本語 🍣';
// Content is stored and read back exactly as sent, surrounding spaces included.
const unicodeArticle = {
  title: `  ${UNICODE}  `,
  excerpt: ` ${UNICODE} `,
  body: [`  ${UNICODE}  `, 'Second paragraph.'],
  readMinutes: 7,
};

let api: TestApi;
let worker: WorkerProcess;
let alice: Publisher;
let bob: Publisher;
/** Alice's articles, oldest first. */
let slugs: string[];
let bobSlug: string | undefined;

beforeAll(async () => {
  api = await startTestApi();
  worker = await startWorkerProcess(api.tag);
  alice = await registerPublisher(api, UNICODE);
  bob = await registerPublisher(api, `Bob ${suffix}`);
  slugs = await createArticles(api, alice, [
    articleData({ category }),
    // Same category, other casing and spaces: it is matched, and keeps its first name.
    articleData({ category: `  ${category.toUpperCase()}  ` }),
    unicodeArticle,
    articleData({ title: 'Fourth', category: undefined }),
    articleData({ title: 'Fifth' }),
  ]);
  [bobSlug] = await createArticles(api, bob, [articleData({ category: otherCategory })]);
});

afterAll(async () => {
  await worker?.stop();
  await api?.close();
});

const listSlugs = (query: string) => articleSlugs(api, query);
const base64url = (text: string) => Buffer.from(text).toString('base64url');

describe('GET /api/articles', () => {
  it('lists articles newest first, each without its body', async () => {
    const page = await readOk<ArticleList>(api, `/api/articles?author=${alice.handle}`);
    expect(page.items.map((item) => item.slug)).toEqual([...slugs].reverse());
    expect(page.nextCursor).toBeNull();
    for (const item of page.items) expect(item).not.toHaveProperty('body');
    expect(page.items.find((item) => item.slug === slugs[2])).toEqual({
      slug: slugs[2],
      title: `  ${UNICODE}  `,
      excerpt: ` ${UNICODE} `,
      cover: null,
      category: null,
      readMinutes: 7,
      version: 1,
      author: { handle: alice.handle, name: UNICODE },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });

    expectNewestFirst((await readOk<ArticleList>(api, '/api/articles?limit=100')).items);
  });

  it('pages with limit and cursor, with no duplicates or gaps', async () => {
    const { items, pages } = await walkPages<ArticleSummary>(
      api,
      `/api/articles?author=${alice.handle}&limit=2`,
    );
    expect(pages.map((page) => page.items.length)).toEqual([2, 2, 1]);
    expect(pages.map((page) => page.nextCursor === null)).toEqual([false, false, true]);
    expect(items.map((item) => item.slug)).toEqual([...slugs].reverse());
  });

  it('pages through articles created in the same millisecond', async () => {
    const dave = await registerPublisher(api, `Dave ${suffix}`);
    const titles = ['One', 'Two', 'Three'];
    const mine = await createArticles(
      api,
      dave,
      titles.map((title) => articleData({ title })),
    );
    // The pipeline cannot make a tie on demand; the id must then decide the order.
    await api.deps.db.prisma.article.updateMany({
      where: { slug: { in: mine } },
      data: { createdAt: new Date('2020-01-01T00:00:00.000Z') },
    });
    const whole = await listSlugs(`author=${dave.handle}`);
    const { items, pages } = await walkPages<ArticleSummary>(
      api,
      `/api/articles?author=${dave.handle}&limit=2`,
    );
    expect(pages.map((page) => page.items.length)).toEqual([2, 1]);
    expect(items.map((item) => item.slug)).toEqual(whole);
    expect([...whole].sort()).toEqual([...mine].sort());
  });

  it('filters by category, ignoring case and surrounding spaces', async () => {
    const query = encodeURIComponent(`  ${category.toLowerCase()} `);
    const { items } = await readOk<ArticleList>(api, `/api/articles?category=${query}`);
    expect(items.map((item) => item.slug)).toEqual([slugs[1], slugs[0]]);
    expect(items.map((item) => item.category)).toEqual([category, category]);
    expect(await listSlugs(`category=${encodeURIComponent(otherCategory.toUpperCase())}`)).toEqual([
      bobSlug,
    ]);
  });

  it('filters by author handle, ignoring case, and combines filters', async () => {
    expect(await listSlugs(`author=${alice.handle.toUpperCase()}`)).toEqual([...slugs].reverse());
    expect(await listSlugs(`author=${bob.handle}`)).toEqual([bobSlug]);
    const both = `author=${bob.handle}&category=${encodeURIComponent(category)}`;
    expect(await listSlugs(both)).toEqual([]);
  });

  it('answers an unknown category or author with an empty list', async () => {
    for (const query of [`category=none-${suffix}`, `author=nobody_${suffix}`]) {
      expect(await readOk(api, `/api/articles?${query}`)).toEqual({ items: [], nextCursor: null });
    }
  });

  it('refuses a cursor it did not give out', async () => {
    const id = '0190a2b4-0000-7000-8000-000000000000';
    const now = new Date().toISOString();
    const forged = [
      'not-a-cursor',
      ...[`yesterday|${id}`, `${now}|not-an-id`, `${now}|${id}|extra`].map(base64url),
      // Shaped like ours, but the database would refuse them: they must not become a 500.
      ...[`${now}|${'-'.repeat(36)}`, `-271821-04-20T00:00:00.000Z|${id}`].map(base64url),
      ...[`0000-01-01T00:00:00.000Z|${id}`, `2021-02-31T00:00:00.000Z|${id}`].map(base64url),
    ];
    for (const cursor of forged) {
      for (const list of ['/api/articles', '/api/highlights']) {
        const response = await read(api, `${list}?cursor=${cursor}`);
        const problem = expectProblem(response, 400, 'VALIDATION_FAILED');
        expect(problem.errors).toEqual([{ path: 'query.cursor', message: expect.any(String) }]);
      }
    }
  });

  it('refuses unknown parameters and out-of-range limits', async () => {
    for (const [url, unknown] of [
      ['/api/articles?categroy=news', 'categroy'],
      ['/api/highlights?author=x', 'author'],
    ] as const) {
      const problem = expectProblem(await read(api, url), 400, 'VALIDATION_FAILED');
      expect(problem.errors).toEqual([
        { path: `query.${unknown}`, message: 'is not a known field' },
      ]);
    }
    for (const limit of ['0', '101', '2.5', 'ten']) {
      const response = await read(api, `/api/articles?limit=${limit}`);
      const problem = expectProblem(response, 400, 'VALIDATION_FAILED');
      expect(problem.errors?.map((error) => error.path)).toEqual(['query.limit']);
    }
  });
});

describe('GET /api/articles/:slug', () => {
  it('answers the article with its body, exactly as sent', async () => {
    expect(await readOk(api, `/api/articles/${slugs[2]}`)).toEqual({
      slug: slugs[2],
      ...unicodeArticle,
      cover: null,
      category: null,
      version: 1,
      author: { handle: alice.handle, name: UNICODE },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const withCategory = await readOk<Article>(api, `/api/articles/${slugs[1]}`);
    expect(withCategory).toMatchObject({ category, body: articleData().body });
  });

  it('answers 404 for a missing slug and 400 for a malformed one', async () => {
    expectProblem(await read(api, `/api/articles/${uniqueSlug('missing')}`), 404, 'NOT_FOUND');
    for (const slug of ['Not_A_Slug', 'double--hyphen', 'trailing-', 'caf%C3%A9']) {
      const response = await read(api, `/api/articles/${slug}`);
      const problem = expectProblem(response, 400, 'VALIDATION_FAILED');
      expect(problem.errors?.map((error) => error.path)).toEqual(['params.slug']);
    }
  });

  it('reads an article whose slug has the full 120 characters', async () => {
    const slug = `${uniqueSlug('long')}-${'x'.repeat(120)}`.slice(0, 120);
    await applied(api, alice.key, 'article.create', articleData({ slug }));
    expect((await readOk<Article>(api, `/api/articles/${slug}`)).slug).toBe(slug);
    const tooLong = expectProblem(
      await read(api, `/api/articles/${slug}x`),
      400,
      'VALIDATION_FAILED',
    );
    expect(tooLong.errors?.map((error) => error.path)).toEqual(['params.slug']);
  });
});

describe('a deleted article', () => {
  it('disappears from the list and the detail, and unlinks its highlights', async () => {
    const carol = await registerPublisher(api, `Carol ${suffix}`);
    const goneCategory = `Gone ${suffix}`;
    const [slug] = await createArticles(api, carol, [articleData({ category: goneCategory })]);
    const highlight = await applied(api, carol.key, 'highlight.create', {
      title: 'Clip',
      videoUrl: 'https://video.example.com/clip.mp4',
      articleSlug: slug,
    });
    expect(await listSlugs(`author=${carol.handle}`)).toEqual([slug]);
    await readOk(api, `/api/articles/${slug}`);

    await applied(api, carol.key, 'article.delete', { slug });
    expect(await listSlugs(`author=${carol.handle}`)).toEqual([]);
    expect(await listSlugs(`category=${encodeURIComponent(goneCategory)}`)).toEqual([]);
    expectProblem(await read(api, `/api/articles/${slug}`), 404, 'NOT_FOUND');

    const { items } = await walkPages<Highlight>(api, '/api/highlights?limit=50', (seen) =>
      seen.some((item) => item.id === highlight.id),
    );
    expect(items.find((item) => item.id === highlight.id)).toMatchObject({ article: null });
    // The category outlives its last article, and is still listed, with nothing in it.
    const { items: categories } = await readOk<CategoryList>(api, '/api/categories');
    expect(categories).toContainEqual({ name: goneCategory, articleCount: 0 });
  });
});

describe('GET /api/highlights', () => {
  it('lists highlights newest first, with and without their article', async () => {
    const plainData = { title: ` ${UNICODE} `, videoUrl: 'https://video.example.com/plain.mp4' };
    const plain = await applied(api, alice.key, 'highlight.create', plainData);
    const linkedData = {
      title: 'Linked',
      videoUrl: 'https://video.example.com/linked.mp4',
      thumbnailUrl: 'https://images.example.com/thumb.jpg',
      durationSeconds: 42,
      description: `  ${UNICODE}`,
      tags: ['food', UNICODE],
    };
    const linked = await applied(api, alice.key, 'highlight.create', {
      ...linkedData,
      articleSlug: slugs[0],
    });
    // limit=2 walks several pages: the list is shared with other files, so stop once
    // both of ours are seen; newer rows from elsewhere only ever land before them.
    const mine = [plain.id, linked.id];
    const { items } = await walkPages<Highlight>(api, '/api/highlights?limit=2', (seen) =>
      mine.every((id) => seen.some((item) => item.id === id)),
    );
    expect(new Set(items.map((item) => item.id)).size).toBe(items.length);
    expectNewestFirst(items);

    const ours = items.filter((item) => item.author.handle === alice.handle);
    expect(ours).toEqual([
      {
        id: linked.id,
        ...linkedData,
        article: { slug: slugs[0], title: articleData().title },
        version: 1,
        author: { handle: alice.handle, name: UNICODE },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
      {
        id: plain.id,
        ...plainData,
        thumbnailUrl: null,
        durationSeconds: null,
        description: null,
        tags: [],
        article: null,
        version: 1,
        author: { handle: alice.handle, name: UNICODE },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    ]);
  });
});

describe('GET /api/categories', () => {
  it('lists every category with its article count, ordered by name ignoring case', async () => {
    const { items: names } = await readOk<CategoryList>(api, '/api/categories');
    expect(names).toContainEqual({ name: category, articleCount: 2 });
    expect(names).toContainEqual({ name: otherCategory, articleCount: 1 });
    // `other …` sorts before `Reads …` only when case is ignored ('R' < 'o' in code points).
    const position = (name: string) => names.findIndex((item) => item.name === name);
    expect(position(otherCategory)).toBeLessThan(position(category));
  });
});

describe('reads while accounts are removed', () => {
  it('answer 200, never a 500: each read is one snapshot', async () => {
    // An article's author (and a highlight's) is read by a statement of its own; an
    // account removed in between (tests' teardown removes theirs) made a 500.
    const { prisma } = api.deps.db;
    const owners = Array.from({ length: 30 }, (_, index) => ({
      id: uuidv7(),
      email: `gone-${suffix}-${index}@example.com`,
      handle: `gone_${suffix}_${index}`,
      name: `Gone ${index}`,
      passwordHash: 'not a hash: never logs in',
    }));
    await prisma.account.createMany({ data: owners });
    const articles = owners.map((owner) => ({
      id: uuidv7(),
      slug: uniqueSlug('gone'),
      accountId: owner.id,
      title: 'Gone soon',
      body: ['Gone soon.'],
      readMinutes: 1,
      readMinutesComputed: false,
    }));
    await prisma.article.createMany({ data: articles });
    await prisma.highlight.createMany({
      data: articles.map((article) => ({
        id: uuidv7(),
        accountId: article.accountId,
        articleId: article.id,
        title: 'Gone soon',
        videoUrl: 'https://video.example.com/gone.mp4',
      })),
    });
    let removing = true;
    const removals = (async () => {
      for (const owner of owners) await prisma.account.delete({ where: { id: owner.id } });
    })().finally(() => (removing = false));
    const statuses: number[] = [];
    let next = 0;
    while (removing) {
      const slug = articles[next++ % articles.length]!.slug;
      const answers = await Promise.all(
        ['/api/articles?limit=100', '/api/highlights?limit=100', `/api/articles/${slug}`].map(
          (url) => read(api, url),
        ),
      );
      statuses.push(...answers.map((answer) => answer.statusCode));
    }
    await removals;
    expect(statuses.length).toBeGreaterThan(0);
    // A removed article's detail is a 404; nothing else may fail.
    expect(statuses.filter((status) => status !== 200 && status !== 404)).toEqual([]);
  });
});
