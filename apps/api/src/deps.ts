import type { FairAdmission, RefusalReport } from '@ingest/fairness';
import type { MinuteCounters } from '@ingest/queue';
import type { ApiClients } from './clients.js';
import type { ApiMetrics } from './metrics.js';
import type { CallRecorder } from './publish/call-recorder.js';
import type { ApiKeyAuthenticator } from './services/api-key-auth.js';
import type { EventWaiter } from './publish/event-waiter.js';

/**
 * Everything the API works with that outlives a request: clients, and the stateful
 * services built on them. runtime.ts builds it, once; routes and plugins only receive it.
 */
export interface ApiDeps extends ApiClients {
  /** Records publishers' calls in group commits and queues their accepted events' jobs. */
  recorder: CallRecorder;
  /** Checks `x-api-key`, with a cache of the keys seen. */
  apiKeys: ApiKeyAuthenticator;
  /** Lets `Prefer: wait` requests hear when their event is finished. */
  waiter: EventWaiter;
  /** Events accepted and rejected, requests refused, per minute: the operators' chart. */
  counters: MinuteCounters<'accepted' | 'rejected' | 'refused'>;
  /** Prometheus series served at /metrics. */
  metrics: ApiMetrics;
  /** Admits or refuses each request by the API's queueing delay and the tenants' shares. */
  admission: FairAdmission;
  /** Refusals counted and summed up in the log, never logged one by one. */
  refusals: RefusalReport;
}
