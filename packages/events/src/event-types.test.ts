import { describe, expect, it } from 'vitest';
import { categoriesNamedBy } from './categories.js';
import {
  canPublish,
  EVENT_NAMES,
  EVENT_TYPE_LIST,
  orderKeysOf,
  SCOPES,
  SUBSCRIBABLE_MESSAGE_TYPES,
} from './index.js';

describe('the list of event types', () => {
  it('gives every type its own name, scope and message type', () => {
    const unique = (values: readonly string[]) => new Set(values).size === values.length;
    expect(unique(EVENT_NAMES)).toBe(true);
    expect(unique(EVENT_TYPE_LIST.map((type) => type.scope))).toBe(true);
    expect(unique(SUBSCRIBABLE_MESSAGE_TYPES)).toBe(true);
    expect(EVENT_TYPE_LIST.map((type) => type.scope)).toEqual(
      EVENT_NAMES.map((name) => name.replace('.', ':')),
    );
  });

  it('lets content:create publish every event, and an event scope that event alone', () => {
    for (const name of EVENT_NAMES) {
      expect(canPublish(['content:create'], name)).toBe(true);
      expect(canPublish(['content:read'], name)).toBe(false);
      const own = SCOPES.filter((scope) => scope !== 'content:create' && canPublish([scope], name));
      expect(own).toEqual([name.replace('.', ':')]);
    }
  });
});

describe('orderKeysOf', () => {
  it('orders each event by the slugs it touches', () => {
    expect(orderKeysOf('article.create', { title: 'Hello World', body: ['x'] })).toEqual([
      'hello-world',
    ]);
    expect(orderKeysOf('article.create', { title: 'Hello', body: ['x'], slug: 'custom' })).toEqual([
      'custom',
    ]);
    expect(orderKeysOf('article.update', { slug: 'a', title: 'T' })).toEqual(['a']);
    expect(orderKeysOf('article.update', { slug: 'a', newSlug: 'b' })).toEqual(['a', 'b']);
    expect(orderKeysOf('article.update', { slug: 'a', newSlug: 'a' })).toEqual(['a']);
    expect(orderKeysOf('article.delete', { slug: 'a' })).toEqual(['a']);
    expect(
      orderKeysOf('highlight.create', { title: 'H', videoUrl: 'https://v.example/1' }),
    ).toEqual([]);
    expect(
      orderKeysOf('highlight.create', {
        title: 'H',
        videoUrl: 'https://v.example/1',
        articleSlug: 'a',
      }),
    ).toEqual(['a']);
  });
});

describe('categoriesNamedBy', () => {
  it('names the category a create or an update files under, and none for a clearing one', () => {
    const named = [
      { title: 'T', body: ['x'], category: 'News' },
      { slug: 'a', category: 'Sport' },
      { slug: 'a', category: null },
      { slug: 'a' },
    ].flatMap(categoriesNamedBy);
    expect(named).toEqual(['News', 'Sport']);
  });
});
