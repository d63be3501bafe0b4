import { describe, expect, it } from 'vitest';
import {
  displayPrefixOf,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
} from './api-key-format.js';

describe('API key format', () => {
  it('generates sk- keys of 52 characters that pass their own checksum', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^sk-[0-9A-Za-z]{49}$/);
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 2_000 }, generateApiKey));
    expect(keys.size).toBe(2_000);
  });

  it('refuses a key with any one character changed', () => {
    const key = generateApiKey();
    for (let index = 3; index < key.length; index += 1) {
      const changed = key[index] === 'a' ? 'b' : 'a';
      const mistyped = key.slice(0, index) + changed + key.slice(index + 1);
      expect(isWellFormedApiKey(mistyped), `changed at ${index}`).toBe(false);
    }
  });

  it('refuses other shapes', () => {
    const key = generateApiKey();
    for (const bad of [
      '',
      'sk-',
      key.slice(0, -1),
      `${key}0`,
      key.replace('sk-', 'pk-'),
      ` ${key}`,
    ]) {
      expect(isWellFormedApiKey(bad)).toBe(false);
    }
  });

  it('hashes to 32 bytes and shows only a short prefix', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toHaveLength(32);
    expect(displayPrefixOf(key)).toBe(key.slice(0, 11));
  });
});
