/**
 * Writes packages/client/src/generated/openapi.ts from the document the API serves, built in-process exactly as
 * the tests build it (test database, machine's Redis). Run from the repository root:
 *
 *   npx tsx test/contract-tools/generate-client-types.ts
 */
import { writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import migrateTestDatabase from '../support/global-setup.js';
import { startTestApi } from '../support/test-api.js';
import { GENERATED_TYPES_PATH, generateClientTypes } from './client-types.js';
import { readServedDocument, REPO_ROOT } from './served-document.js';

// As before a test run: the test API cleans its data up on close, which needs the tables.
await migrateTestDatabase();
const api = await startTestApi();
try {
  const types = await generateClientTypes(await readServedDocument(api));
  await writeFile(GENERATED_TYPES_PATH, types);
  console.log(`wrote ${relative(REPO_ROOT, GENERATED_TYPES_PATH)}`);
} finally {
  await api.close();
}
