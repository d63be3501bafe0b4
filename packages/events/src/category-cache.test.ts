import { describe, expect, it } from 'vitest';
import { createCategoryCache } from './category-cache.js';

describe('the category cache', () => {
  it('answers the ids it was told, and nothing for others', () => {
    const cache = createCategoryCache();
    cache.remember('news', 'id-news');
    expect(cache.idOf('news')).toBe('id-news');
    expect(cache.idOf('sport')).toBeUndefined();
  });

  it('forgets the id remembered first once it is full, and only that one', () => {
    const cache = createCategoryCache(2);
    cache.remember('a', 'id-a');
    cache.remember('b', 'id-b');
    cache.remember('c', 'id-c');
    expect(['a', 'b', 'c'].map((key) => cache.idOf(key))).toEqual([undefined, 'id-b', 'id-c']);
  });

  it('counts a key remembered again as the newest', () => {
    const cache = createCategoryCache(2);
    cache.remember('a', 'id-a');
    cache.remember('b', 'id-b');
    cache.remember('a', 'id-a');
    cache.remember('c', 'id-c');
    expect(['a', 'b', 'c'].map((key) => cache.idOf(key))).toEqual(['id-a', undefined, 'id-c']);
  });

  it('is its own: two caches (two runtimes) share nothing', () => {
    const first = createCategoryCache();
    const second = createCategoryCache();
    first.remember('news', 'id-news');
    expect(second.idOf('news')).toBeUndefined();
  });
});
