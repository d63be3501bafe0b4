import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { articleMessage, type ArticleState } from './articles/message.js';
import { buildEventCatalog } from './catalog.js';
import {
  checkFilter,
  compileFilter,
  filterFieldsOf,
  MessageFilterSchema,
  type MessageFilter,
} from './message-filter.js';
import { MESSAGE_TYPES } from './outgoing.js';
import { DEFAULT_CONTENT_LIMITS } from '@ingest/contracts';

const ACCOUNT_ID = '0190a000-0000-7000-8000-00000000000a';
const NEWS_ID = '0190a000-0000-7000-8000-00000000000c';
const EVENT_ID = '0190a000-0000-7000-8000-00000000000e';
const names = {
  authors: new Map([[ACCOUNT_ID, { handle: 'ada', name: 'Ada' }]]),
  categories: new Map([[NEWS_ID, 'News']]),
};

/** The body an endpoint receives for an article.created, checked against its schema. */
function createdBody(changes: Partial<ArticleState>): unknown {
  const state: ArticleState = {
    id: '0190a000-0000-7000-8000-000000000001',
    slug: 'news-launch',
    accountId: ACCOUNT_ID,
    title: 'Launch',
    excerpt: null,
    body: ['A paragraph.'],
    cover: null,
    categoryId: NEWS_ID,
    readMinutes: 1,
    readMinutesComputed: true,
    version: 1,
    ...changes,
  };
  const message = articleMessage('article.created', { version: 1, description: '' });
  const at = new Date('2026-01-02T03:04:05.000Z');
  const body = {
    type: message.type,
    timestamp: at.toISOString(),
    data: message.entry(EVENT_ID, state, state.version).dataOf(names, at),
  };
  return MESSAGE_TYPES.find((known) => known.type === 'article.created')!.bodySchema.parse(body);
}

const issuesOf = (input: unknown) =>
  (MessageFilterSchema.safeParse(input).error?.issues ?? []).map((issue) => ({
    path: issue.path.join('.'),
    message: issue.message,
  }));

function nested(depth: number): unknown {
  let filter: unknown = { field: 'type', exists: true };
  for (let level = 1; level < depth; level++) filter = { not: filter };
  return filter;
}

describe('MessageFilterSchema', () => {
  it('takes every form, nested', () => {
    const filter = {
      and: [
        { field: 'data.article.category', eq: 'News' },
        {
          or: [
            { field: 'data.article.slug', prefix: 'news-' },
            { field: 'type', in: [1, null] },
          ],
        },
        { not: { field: 'data.article.cover', exists: true } },
      ],
    };
    expect(MessageFilterSchema.parse(filter)).toEqual(filter);
    expect(MessageFilterSchema.safeParse(nested(6)).success).toBe(true);
  });

  it('names what is wrong with a node, at its own path', () => {
    expect(issuesOf({ field: 'type', eq: 'x', in: ['x'] })).toEqual([
      { path: '', message: expect.stringMatching(/exactly one of .*, not eq and in$/) },
    ]);
    expect(issuesOf({ and: [{ field: 'type', eq: 'x' }, { field: 'type' }] })).toEqual([
      { path: 'and.1', message: expect.stringContaining('exactly one of') },
    ]);
    expect(issuesOf({ not: { field: 'type', eq: 'x', colour: 'red' } })).toEqual([
      { path: 'not.colour', message: 'is not a known field' },
    ]);
    expect(issuesOf({ field: 'type', in: [] })).toEqual([
      { path: 'in', message: expect.stringContaining('>=1') },
    ]);
    expect(issuesOf({ field: 'data..slug', prefix: 'x'.repeat(501) }).map((i) => i.path)).toEqual([
      'field',
      'prefix',
    ]);
    expect(issuesOf({ or: [] }).map((issue) => issue.path)).toEqual(['or']);
    expect(issuesOf('type')).toHaveLength(1);
  });

  it('refuses a filter nested more than 6 levels, however deep', () => {
    expect(issuesOf(nested(7))).toEqual([
      { path: 'not.not.not.not.not.not', message: 'nests too deep: at most 6 levels' },
    ]);
    expect(issuesOf(nested(50_000))).toHaveLength(1);
  });

  it('refuses more than 64 filters in all', () => {
    const leaf = { field: 'type', exists: true };
    const twenty = { and: Array.from({ length: 20 }, () => leaf) };
    expect(MessageFilterSchema.safeParse({ or: [twenty, twenty, twenty] }).success).toBe(true);
    expect(issuesOf({ or: [twenty, twenty, twenty, leaf] })).toEqual([
      { path: '', message: 'must hold at most 64 filters in all' },
    ]);
  });

  it('converts to JSON Schema, one recursive definition', () => {
    const schema = z.toJSONSchema(MessageFilterSchema, { io: 'input' });
    expect(schema.$ref).toBe('#/$defs/MessageFilter');
    expect(JSON.stringify(schema.$defs)).toContain('"items":{"$ref":"#/$defs/MessageFilter"}');
  });
});

describe('filterFieldsOf', () => {
  it("lists a type's scalar fields outside arrays, sorted", () => {
    const fields = filterFieldsOf('article.created');
    expect(fields).toContain('data.article.slug');
    expect(fields).toContain('data.article.author.handle');
    expect(fields).toContain('data.article.category');
    expect(fields).not.toContain('data.article.body');
    expect(fields).not.toContain('data.article');
    expect(fields).toEqual([...fields].sort());
    expect(filterFieldsOf('highlight.created')).not.toContain('data.highlight.tags');
    expect(filterFieldsOf('ping')).toEqual(['data.endpointId', 'data.url', 'timestamp', 'type']);
  });

  it('is what the catalog shows', () => {
    const catalog = buildEventCatalog(DEFAULT_CONTENT_LIMITS);
    for (const { type, filterFields } of catalog.outgoing) {
      expect(filterFields).toEqual(filterFieldsOf(type));
    }
  });
});

describe('checkFilter', () => {
  it('names each field no given type has, by its path in the filter', () => {
    const filter: MessageFilter = {
      and: [
        { field: 'type', eq: 'article.created' },
        { field: 'data.article.body', exists: true },
      ],
    };
    const problems = checkFilter(filter, ['article.created', 'article.updated']);
    expect(problems).toEqual([{ path: 'and.1.field', message: expect.any(String) }]);
    expect(problems[0]!.message).toMatch(
      /^must be one of the filterable fields of article.created, article.updated: .*data\.article\.slug/,
    );
  });

  it('takes a field that one of the types has', () => {
    const filter: MessageFilter = { not: { field: 'data.highlight.id', exists: true } };
    expect(checkFilter(filter, ['article.created', 'highlight.created'])).toEqual([]);
    expect(checkFilter(filter, ['article.created'])).toEqual([
      { path: 'not.field', message: expect.any(String) },
    ]);
  });

  it('points to the catalog when the fields are too many to list', () => {
    const [problem] = checkFilter(
      { field: 'nope', eq: 1 },
      MESSAGE_TYPES.map((m) => m.type),
    );
    expect(problem?.message).toContain('filterFields in GET /api/event-types');
  });
});

describe('compileFilter', () => {
  const news = createdBody({});
  const sport = createdBody({ slug: 'match-report', categoryId: null, excerpt: 'Short' });
  const matches = (filter: MessageFilter) => [news, sport].map(compileFilter(filter));

  it('eq compares strictly, and a missing or null field equals null', () => {
    expect(matches({ field: 'data.article.category', eq: 'News' })).toEqual([true, false]);
    expect(matches({ field: 'data.article.version', eq: 1 })).toEqual([true, true]);
    expect(matches({ field: 'data.article.version', eq: '1' })).toEqual([false, false]);
    expect(matches({ field: 'data.article.category', eq: null })).toEqual([false, true]);
    expect(matches({ field: 'data.article.missing', eq: null })).toEqual([true, true]);
    expect(matches({ field: 'data.article', eq: null })).toEqual([false, false]);
  });

  it('prefix takes string values only', () => {
    expect(matches({ field: 'data.article.slug', prefix: 'news-' })).toEqual([true, false]);
    expect(matches({ field: 'data.article.readMinutes', prefix: '1' })).toEqual([false, false]);
    expect(matches({ field: 'data.article.category', prefix: '' })).toEqual([true, false]);
  });

  it('in matches any of its values', () => {
    expect(matches({ field: 'data.article.category', in: ['Sport', 'News'] })).toEqual([
      true,
      false,
    ]);
    expect(matches({ field: 'data.article.category', in: ['Sport', null] })).toEqual([false, true]);
  });

  it('exists holds for a present, non-null value', () => {
    expect(matches({ field: 'data.article.excerpt', exists: true })).toEqual([false, true]);
    expect(matches({ field: 'data.article.excerpt', exists: false })).toEqual([true, false]);
    expect(matches({ field: 'data.article.author.handle', exists: true })).toEqual([true, true]);
    expect(matches({ field: 'data.highlight.id', exists: false })).toEqual([true, true]);
    expect(matches({ field: 'data.article.body.0', exists: true })).toEqual([false, false]);
    expect(matches({ field: 'data.article.title.length', exists: true })).toEqual([false, false]);
  });

  it('combines with and, or and not', () => {
    const newsSlug = { field: 'data.article.slug', prefix: 'news-' };
    const sportSlug = { field: 'data.article.slug', prefix: 'match-' };
    const inNews = { field: 'data.article.category', eq: 'News' };
    expect(matches({ and: [inNews, newsSlug] })).toEqual([true, false]);
    expect(matches({ and: [inNews, sportSlug] })).toEqual([false, false]);
    expect(matches({ or: [newsSlug, sportSlug] })).toEqual([true, true]);
    expect(matches({ or: [{ not: inNews }, sportSlug] })).toEqual([false, true]);
    expect(matches({ not: { and: [inNews, { not: newsSlug }] } })).toEqual([true, true]);
  });

  it('refuses what is not an object body', () => {
    const test = compileFilter({ field: 'type', exists: true });
    expect([null, 'x', [], undefined].map(test)).toEqual([false, false, false, false]);
  });
});
