import type { TestApi } from '../../support/test-api.js';

/**
 * POSTs `text` exactly as given: the generators write the body themselves, so that keys
 * such as `__proto__` and nesting beyond JSON.stringify's reach arrive as a client sent
 * them.
 */
export const postText = (
  api: TestApi,
  url: string,
  text: string,
  contentType: string,
  headers: Record<string, string> = {},
) =>
  api.app.inject({
    method: 'POST',
    url,
    body: text,
    headers: { 'content-type': contentType, ...headers },
  });
