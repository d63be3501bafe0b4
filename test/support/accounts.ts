// The harness's accounts, bound to a TestApi: requests go through its app's inject, and
// emails are in its tag's domain, whose accounts the TestApi deletes when it closes.
import {
  createApiKey,
  injectClient,
  newAccountFields as fieldsIn,
  registerAccount as register,
  type AccountFields,
  type ApiClient,
  type CreatedApiKey,
  type RegisteredAccount,
} from '@ingest/test-harness';
import type { TestApi } from './test-api.js';

export { bearer, type RegisteredAccount } from '@ingest/test-harness';

const clientOf = (api: TestApi): ApiClient => injectClient((options) => api.app.inject(options));

/** Fresh, valid registration fields in this API's test domain. */
export const newAccountFields = (api: TestApi): AccountFields => fieldsIn(`${api.tag}.test`);

export const registerAccount = (
  api: TestApi,
  fields: AccountFields = newAccountFields(api),
): Promise<RegisteredAccount> => register(clientOf(api), fields);

/** A key of the account's; by default one that may publish (content:create). */
export const createKey = (
  api: TestApi,
  account: RegisteredAccount,
  body?: Record<string, unknown>,
): Promise<CreatedApiKey> => createApiKey(clientOf(api), account.token, body);
