// Fixtures for the worker's unit tests (beside the code in src/): recorded events as the
// claim reads them, routed as the worker routes them, with no database behind them. Kept
// out of src/, so that the build, which compiles src/, never ships them.
import { loadWorkerConfig } from '@ingest/config';
import { orderKeysOf, type EventData, type EventName } from '@ingest/events';
import type { EventRow } from '@ingest/event-log';
import { createLogger } from '@ingest/logger';
import { routeEvent, type RoutedEvent } from '../src/content/route-event.js';

const config = loadWorkerConfig({});
export const testDeps = {
  config,
  logger: createLogger({ level: 'silent', name: 'worker-test' }),
};

export const ACCOUNT_ID = '0190a000-0000-7000-8000-000000000001';
let recorded = 0;

/** An event of ACCOUNT_ID in the lines its order keys name, as the API would record it. */
export function eventRow<Name extends EventName>(
  event: Name,
  data: EventData<Name>,
  overrides: Partial<EventRow> = {},
): EventRow {
  recorded += 1;
  return {
    id: `event-${recorded}`, // a uuid in the database; any distinct id will do here
    event,
    accountId: ACCOUNT_ID,
    payload: data,
    requestId: `request-${recorded}`,
    notifyOnFinish: false,
    receivedAt: new Date(),
    lastReplayedAt: null,
    sequence: String(recorded),
    orderKeys: orderKeysOf(event, data),
    ...overrides,
  };
}

export const routed = (row: EventRow): RoutedEvent => routeEvent(row, testDeps.config.content);
