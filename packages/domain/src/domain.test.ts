import { describe, expect, it } from 'vitest';
import { orderKeysOf, readingMinutes, slugFromTitle } from './index.js';

describe('slugFromTitle', () => {
  it.each([
    ['Hello World', 'hello-world'],
    ['  Crème Brûlée à la Façon   déjà vu! ', 'creme-brulee-a-la-facon-deja-vu'],
    ['Straße & Größe', 'strasse-and-groesse'],
    ['C++ > Java?', 'c-java'],
    ['!!!', 'article'],
    ['2026: A Year', '2026-a-year'],
  ])('%j -> %j', (title, slug) => {
    expect(slugFromTitle(title)).toBe(slug);
  });

  it('cuts long titles at a word boundary, to at most 80 characters', () => {
    const slug = slugFromTitle('word '.repeat(40));
    expect(slug.length).toBeLessThanOrEqual(80);
    expect(slug).toMatch(/^word(-word)*$/);
    expect(slugFromTitle('x'.repeat(200))).toBe('x'.repeat(80));
  });
});

describe('readingMinutes', () => {
  it('counts about 200 words a minute, at least one', () => {
    expect(readingMinutes([''])).toBe(1);
    expect(readingMinutes(['word '.repeat(200)])).toBe(1);
    expect(readingMinutes(['word '.repeat(201)])).toBe(2);
    expect(readingMinutes(['word '.repeat(300), 'word '.repeat(300)])).toBe(3);
    expect(readingMinutes(['word '.repeat(5000)], 10)).toBe(10);
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
