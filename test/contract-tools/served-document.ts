import { fileURLToPath } from 'node:url';
import type { TestApi } from '../support/test-api.js';

/** The repository's root directory (where redocly.yaml and node_modules/.bin live). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The OpenAPI document exactly as the API serves it at GET /openapi.json, as JSON text.
 * Kept as text: both redocly and openapi-typescript take it as is, so nothing has to
 * claim a type for the parsed value.
 */
export async function readServedDocument(api: TestApi): Promise<string> {
  const response = await api.app.inject({ method: 'GET', url: '/openapi.json' });
  if (response.statusCode !== 200) {
    throw new Error(`GET /openapi.json answered ${response.statusCode}: ${response.body}`);
  }
  // Fails here, with the cause, rather than inside a tool that reports it less clearly.
  JSON.parse(response.body);
  return response.body;
}
