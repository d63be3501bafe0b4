import { it } from 'vitest';
import { GROUPS, type Group } from './coverage.js';
import { fuzz, PROPERTY_RUNS, timeoutFor } from './fuzz.js';
import { operationRequests, type OperationProfile } from './operation-requests.js';
import { successStatuses } from './reach.js';
import type { ContractSetup } from './setup.js';

/**
 * One test per operation of the group: its requests, generated from the document and the
 * file's profiles, fuzzed and held to the document; and every success status it declares
 * must be answered (with its body checked) at least once. `setup` is read when the test
 * runs, after the file's beforeAll has made it.
 */
export function fuzzEachOperation(
  group: Group,
  setup: () => ContractSetup,
  profiles: Record<string, OperationProfile>,
): void {
  for (const key of GROUPS[group]) {
    it(
      key,
      async () => {
        const context = setup();
        const operation = context.operation(key);
        const cases = operationRequests(operation, context.credentials, profiles[key]);
        await fuzz(key, context, cases, PROPERTY_RUNS, { mustAnswer: successStatuses(operation) });
      },
      timeoutFor(PROPERTY_RUNS),
    );
  }
}
