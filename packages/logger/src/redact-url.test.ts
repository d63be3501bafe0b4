import { describe, expect, it } from 'vitest';
import { redactUrl } from './redact-url.js';

describe('redactUrl', () => {
  it('replaces the value of each credential parameter, whatever the case of its name', () => {
    expect(
      redactUrl('/api/items?key=sk-1&API_KEY=sk-2&Token=t&access_token=a&secret=s&password=p'),
    ).toBe(
      '/api/items?key=[redacted]&API_KEY=[redacted]&Token=[redacted]' +
        '&access_token=[redacted]&secret=[redacted]&password=[redacted]',
    );
  });

  it('keeps the path, the other parameters and their encoding as they were', () => {
    expect(redactUrl('/api/items?q=a%20b+c&key=sk-1&page=2&flag')).toBe(
      '/api/items?q=a%20b+c&key=[redacted]&page=2&flag',
    );
    expect(redactUrl('/api/items')).toBe('/api/items');
    expect(redactUrl('/api/items?keys=1&monkey=2')).toBe('/api/items?keys=1&monkey=2');
  });

  it('reads names as a server decodes them', () => {
    expect(redactUrl('/a?%6Bey=sk-1&api%5Fkey=sk-2')).toBe(
      '/a?%6Bey=[redacted]&api%5Fkey=[redacted]',
    );
  });

  it('redacts a webhook endpoint URL, leaving its fragment alone', () => {
    expect(redactUrl('https://hooks.example.com/in?token=abc&v=1#part')).toBe(
      'https://hooks.example.com/in?token=[redacted]&v=1#part',
    );
    expect(redactUrl('https://hooks.example.com/in#?token=abc')).toBe(
      'https://hooks.example.com/in#?token=abc',
    );
  });

  it('leaves an already redacted URL as it is', () => {
    const once = redactUrl('/a?key=sk-1');
    expect(redactUrl(once)).toBe(once);
  });
});
