import type { EventLogStorage } from '@ingest/contracts';
import { REFUSAL_REASONS, type FairAdmission } from '@ingest/fairness';
import {
  Counter,
  Gauge,
  createMetricsRegistry,
  oneReadPerScrape,
  fromZero,
  registerEventLogStorage,
  registerQueueDepth,
  type EventLogFigures,
  type Registry,
} from '@ingest/observability';
import type { ReadReplica } from '@ingest/db';
import { readQueueDepth } from '@ingest/queue';
import type { ApiClients } from './clients.js';
import { operatorFigures, type OperatorFigures } from './services/admin/operator-figures.js';
import { eventLogStorage } from './services/admin/storage.js';

export interface ApiMetrics {
  registry: Registry;
  eventsAccepted: Counter<'event'>;
  eventsRejected: Counter<'code'>;
  requestsRefused: Counter<'reason'>;
}

const figuresOf = (storage: EventLogStorage): EventLogFigures => ({
  tables: Object.entries(storage.totals).map(([table, total]) => ({
    table,
    bytes: total.sizeBytes,
    partitions: total.partitions,
  })),
  heldPartitions: storage.held.length,
  premadeUntilMs: storage.premadeUntil === null ? null : Date.parse(storage.premadeUntil),
  nextDropAtMs: storage.nextDrop === null ? null : Date.parse(storage.nextDrop.at),
});

/**
 * The API's Prometheus series. Request count and duration by route and status come from
 * fastify-metrics (plugins/metrics.ts); these are the ingestion's own. The event log's
 * storage is read from PostgreSQL here only, not in the workers: it is the same figure
 * from every process, and one source is enough.
 */
export function createApiMetrics(
  clients: Pick<ApiClients, 'queues' | 'db' | 'config' | 'replica'>,
  admission: FairAdmission,
): ApiMetrics {
  const registry = createMetricsRegistry('api');
  registerQueueDepth(registry, () => readQueueDepth(clients.queues.all));
  registerEventLogStorage(registry, async () => figuresOf(await eventLogStorage(clients)));
  registerAdmissionState(registry, admission);
  registerReadReplica(registry, clients.replica);
  registerOperatorFigures(registry, () => operatorFigures(clients.db.pool));
  return {
    requestsRefused: fromZero(
      new Counter({
        name: 'ingest_requests_refused_total',
        help: 'Requests refused before any work was done for them, by reason: over_share (429: the account or address held more than its share of a full API and its queue stood too long), overloaded (503: full for everyone), rate_limit (429: over a configured rate limit)',
        labelNames: ['reason'],
        registers: [registry],
      }),
      'reason',
      REFUSAL_REASONS,
    ),
    registry,
    eventsAccepted: new Counter({
      name: 'ingest_events_accepted_total',
      help: 'Content events accepted (202), by event name',
      labelNames: ['event'],
      registers: [registry],
    }),
    eventsRejected: new Counter({
      name: 'ingest_events_rejected_total',
      help: 'Content events refused after authentication, by error code',
      labelNames: ['code'],
      registers: [registry],
    }),
  };
}

/** What admission control sees, read at each scrape. */
function registerAdmissionState(registry: Registry, admission: FairAdmission): void {
  new Gauge({
    name: 'ingest_admission_requests',
    help: 'Requests admission control holds: in_service (being worked on) and waiting (queued for a place, by tenant, before their bodies are read)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const { inService, waiting } = admission.state();
      this.set({ state: 'in_service' }, inService);
      this.set({ state: 'waiting' }, waiting);
    },
  });
  new Gauge({
    name: 'ingest_admission_tenants',
    help: 'Tenants (accounts, or addresses without an account) with a request in service or waiting',
    registers: [registry],
    collect() {
      this.set(admission.state().tenants);
    },
  });
}

/** Where reads that need not be fresh go, and how far behind the replica is. */
function registerReadReplica(registry: Registry, replica: ReadReplica): void {
  new Gauge({
    name: 'ingest_read_replica_lag_seconds',
    help: 'How far the read replica (DATABASE_READ_URL) is behind the primary, read every second; NaN without a replica or while it does not answer',
    registers: [registry],
    collect() {
      this.set(replica.lagSeconds() ?? Number.NaN);
    },
  });
  new Gauge({
    name: 'ingest_read_replica_in_use',
    help: '1 while reads that need not be fresh go to the read replica; 0 while every read goes to the primary (no replica, or one that is away or further behind than DATABASE_READ_MAX_LAG_MS)',
    registers: [registry],
    collect() {
      this.set(replica.inUse() ? 1 : 0);
    },
  });
}

/**
 * Webhook endpoints by state, and by name the endpoints failing longest and the accounts
 * with the most queued events (NAMED_AT_MOST of each, so a label per tenant stays few
 * series), read from PostgreSQL at each scrape. Left out when the read fails or is slow.
 */
function registerOperatorFigures(
  registry: Registry,
  readFigures: () => Promise<OperatorFigures>,
  timeoutMs = 2_000,
): void {
  const read = oneReadPerScrape(readFigures, timeoutMs);
  const gauge = (
    name: string,
    help: string,
    labelNames: string[],
    set: (gauge: Gauge, figures: OperatorFigures, now: number) => void,
  ) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const figures = await read();
        this.reset();
        if (figures !== undefined) set(this, figures, Date.now());
      },
    });
  gauge(
    'ingest_webhook_endpoints',
    'Webhook endpoints by state: enabled, failing (enabled, its deliveries failing), disabled',
    ['state'],
    (self, { endpoints }) => {
      for (const [state, count] of Object.entries(endpoints)) self.set({ state }, count);
    },
  );
  gauge(
    'ingest_webhook_endpoint_failing_seconds',
    'Seconds since deliveries to an endpoint began failing, for the endpoints failing longest',
    ['endpoint', 'account'],
    (self, { failing }, now) => {
      for (const { endpointId, account, failingSinceMs } of failing)
        self.set({ endpoint: endpointId, account }, (now - failingSinceMs) / 1000);
    },
  );
  gauge(
    'ingest_account_queued_events',
    'Queued events of the accounts with the most, by account handle (the event log)',
    ['account'],
    (self, { backlogs }) => {
      for (const { account, queued } of backlogs) self.set({ account }, queued);
    },
  );
  gauge(
    'ingest_account_oldest_queued_age_seconds',
    "Seconds since the account's oldest queued event was received, for the accounts with the most queued",
    ['account'],
    (self, { backlogs }, now) => {
      for (const { account, oldestQueuedAtMs } of backlogs)
        if (oldestQueuedAtMs !== null) self.set({ account }, (now - oldestQueuedAtMs) / 1000);
    },
  );
}
