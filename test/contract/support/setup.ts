// One test file's world: the real app on the test database and Redis, the document it
// serves, the validator built from that document, and credentials of every kind.
import type { Env } from '@ingest/config';
import { PROPERTY_API_ENV } from '../../properties/support/property-runs.js';
import { startTestApi, type TestApi } from '../../support/test-api.js';
import { setUpCredentials, type Credentials } from './credentials.js';
import {
  loadServedDocument,
  operationsOf,
  type OpenApiDocument,
  type Operation,
} from './document.js';
import type { FuzzContext } from './fuzz.js';
import { labelSecrets } from './requests.js';
import { ContractValidator } from './validator.js';

export interface ContractSetup extends FuzzContext {
  api: TestApi;
  document: OpenApiDocument;
  credentials: Credentials;
  /** The document's operation named `GET /api/articles`; throws when it has none. */
  operation(key: string): Operation;
}

export async function startContract(overrides: Env = {}): Promise<ContractSetup> {
  const api = await startTestApi({ ...PROPERTY_API_ENV, ...overrides });
  const document = await loadServedDocument(api);
  const validator = new ContractValidator(document);
  const credentials = await setUpCredentials(api);
  labelSecrets(credentials.labels);
  const operations = new Map(operationsOf(document).map((operation) => [operation.key, operation]));
  return {
    api,
    document,
    validator,
    credentials,
    operation(key) {
      const found = operations.get(key);
      if (found === undefined) throw new Error(`the served document has no ${key}`);
      return found;
    },
  };
}
