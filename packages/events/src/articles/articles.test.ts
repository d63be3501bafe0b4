import { describe, expect, it } from 'vitest';
import { readingMinutes } from './reading-time.js';
import { slugFromTitle } from './slugs.js';

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
