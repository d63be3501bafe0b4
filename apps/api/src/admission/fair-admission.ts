export interface AdmissionOptions {
  /**
   * Places: what requests hold while the API works on them (a request holds its cost in
   * places), shared fairly between tenants; 0 turns admission control off.
   */
  concurrency: number;
  /** How long a tenant's requests may wait for a place before its new ones are refused. */
  maxQueueMs: number;
}

/** Who a request counts against: an account (`account:<id>`) or a client address (`ip:<addr>`). */
export type Tenant = string;

/** The places an admitted request holds until `finish`; null when admission control is off. */
export type Slot = { readonly tenant: TenantState; readonly cost: number } | null;

export type Refusal = {
  admitted: false;
  /** over_share: the tenant holds more than its share (429); overloaded: no more (503). */
  reason: 'over_share' | 'overloaded';
  retryAfterSeconds: number;
  /** The places each tenant may hold now; the tenant held `held` of them. */
  share: number;
  held: number;
};

export type Admission = { admitted: true; slot: Slot } | Refusal;

/** A request that found the API full: `outcome` settles once a place frees, or it is refused. */
export interface Queued {
  admitted: 'waiting';
  outcome: Promise<Admission>;
  /** The client went away: it leaves its queue, holding nothing (`outcome` refuses it). */
  cancel(): void;
}

export interface AdmissionState {
  /** Requests being worked on, and waiting for a place. */
  inService: number;
  waiting: number;
  /** Tenants with a request in service or waiting. */
  tenants: number;
  /** Places a tenant of weight 1 may hold while the API is full. */
  share: number;
}

export interface FairAdmission {
  /**
   * Admits, queues or refuses a request of `tenant`, of relative `weight` (its account's),
   * that holds `cost` places while it runs.
   */
  admit(tenant: Tenant, cost: number, weight?: number): Admission | Queued;
  /** The request holding `slot` is answered, or no longer holds anything scarce. */
  finish(slot: Slot): void;
  /**
   * The refusal `admit` would answer `tenant` with now because its queue stands, if so;
   * undefined otherwise. Changes nothing: for refusing before any other work.
   */
  standingRefusal(tenant: Tenant): Refusal | undefined;
  state(): AdmissionState;
  /** The tenants holding or wanting the most places, for the refusal log. */
  busiest(count: number): Array<{ tenant: Tenant; inService: number; waiting: number }>;
  close(): void;
}

/** A waiting request is refused as overloaded after this long, whatever else happens. */
const QUEUE_TIMEOUT_MS = 10_000;
const MAX_RETRY_AFTER_SECONDS = 60;
/** A tenant's completions a second are an average over about this long. */
const RATE_TIME_CONSTANT_MS = 1_000;

interface Waiting {
  since: number;
  cost: number;
  settle: (admission: Admission) => void;
  done: boolean;
}

class TenantState {
  weight = 1;
  inService = 0;
  waiting = 0;
  readonly queue: Waiting[] = [];
  queueHead = 0;
  inRotation = false;
  completedPerSecond = 0;
  completedAt = 0;
  constructor(readonly id: Tenant) {}

  /** The oldest request still waiting, dropping those settled meanwhile (cancelled). */
  oldest(): Waiting | undefined {
    while (this.queueHead < this.queue.length && this.queue[this.queueHead]!.done) {
      this.queueHead += 1;
    }
    if (this.queueHead === this.queue.length && this.queueHead > 0) {
      this.queue.length = 0;
      this.queueHead = 0;
    }
    return this.queue[this.queueHead];
  }
}

const ADMITTED_UNTRACKED: Admission = { admitted: true, slot: null };

/**
 * Admission control that does not collapse: a fair scheduler in front of the API's work.
 * (Shares below are in proportion to the tenants' weights: an account's `queueWeight`.)
 *
 * The API works on at most `concurrency` requests at once (it waits in the database pool
 * and the accept batcher beyond that, where every tenant queues behind every other). A
 * request that finds the API full waits for a place in its tenant's own queue, before
 * its body is read; places that free go round the waiting tenants in turn, and a tenant
 * holding less than its share (concurrency / tenants with work) is admitted at once, so
 * a quiet tenant never waits behind a busy one. A client polling in a closed loop is
 * thereby slowed to its share, never refused: refusing it would only make it ask again
 * at once and turn the API's work into refusals (what collapsed before).
 *
 * A tenant is refused only when its own queue has stood for `maxQueueMs`: its arrivals
 * outrun its share of what the API completes, as with open-loop load past capacity. The
 * answer then costs a map lookup and a small body: 429 when the tenant holds more than
 * its share, 503 when it does not and the API is full for everyone. An account's keys
 * and tokens are one tenant, so more keys buy no more share; callers without an account
 * count by address.
 *
 * Hand-written: the Node libraries at hand shed on event-loop utilisation or a fixed
 * concurrency limit, and none queues or refuses by tenant.
 */
export function createFairAdmission(
  options: AdmissionOptions,
  clock: () => number = () => performance.now(),
): FairAdmission {
  const { concurrency, maxQueueMs } = options;
  const tenants = new Map<Tenant, TenantState>();
  const rotation: TenantState[] = [];
  let inService = 0;
  let waiting = 0;
  let totalWeight = 0;
  /** A tenant's share of the places: its weight's part of all the tenants' with work. */
  const shareOf = (tenant: TenantState) => (concurrency * tenant.weight) / totalWeight;
  const sweeper = setInterval(() => expireWaiting(clock()), Math.min(1_000, QUEUE_TIMEOUT_MS / 10));
  sweeper.unref();

  function stateOf(id: Tenant, weight: number): TenantState {
    let tenant = tenants.get(id);
    if (tenant === undefined) {
      tenant = new TenantState(id);
      tenants.set(id, tenant);
      tenant.weight = 0;
    }
    totalWeight += weight - tenant.weight;
    tenant.weight = weight;
    return tenant;
  }

  function start(tenant: TenantState, cost: number): Admission {
    tenant.inService += cost;
    inService += cost;
    return { admitted: true, slot: { tenant, cost } };
  }

  /** Starts the oldest waiting request of `tenant`; false when it has none. */
  function startOldest(tenant: TenantState): boolean {
    const next = tenant.oldest();
    if (next === undefined) return false;
    next.done = true;
    tenant.queueHead += 1;
    tenant.waiting -= 1;
    waiting -= 1;
    next.settle(start(tenant, next.cost));
    return true;
  }

  /** Hands free places to waiting tenants: a tenant under its share first, then in turns. */
  function dispatch(finished: TenantState): void {
    if (finished.inService < shareOf(finished)) startOldest(finished);
    while (inService < concurrency && rotation.length > 0) {
      const tenant = rotation.shift()!;
      startOldest(tenant);
      if (tenant.waiting > 0) rotation.push(tenant);
      else leaveRotation(tenant);
    }
  }

  /** A tenant with nothing waiting leaves the turns; one with nothing in service, the map. */
  function leaveRotation(tenant: TenantState): void {
    tenant.inRotation = false;
    forgetIfIdle(tenant);
  }

  function forgetIfIdle(tenant: TenantState): void {
    if (tenant.inService === 0 && tenant.waiting === 0 && !tenant.inRotation) {
      tenants.delete(tenant.id);
      totalWeight -= tenant.weight;
    }
  }

  function refuse(tenant: TenantState, now: number, oldest: Waiting): Refusal {
    const fair = shareOf(tenant);
    // How long the tenant's queue takes to drain at its pace, and at least how long its
    // oldest request has already stood.
    const drainMs =
      tenant.completedPerSecond > 0 ? (tenant.waiting * 1000) / tenant.completedPerSecond : 0;
    const seconds = Math.max(drainMs, now - oldest.since) / 1000;
    return {
      admitted: false,
      // Holding more than its share, it is the one to slow down (429); holding no more,
      // the API is simply full for everyone (503).
      reason: tenant.inService > fair ? 'over_share' : 'overloaded',
      retryAfterSeconds: Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(seconds))),
      share: fair,
      held: tenant.inService,
    };
  }

  function wait(tenant: TenantState, now: number, cost: number): Queued {
    let entry!: Waiting;
    const outcome = new Promise<Admission>((resolve) => {
      entry = { since: now, cost, settle: resolve, done: false };
    });
    tenant.queue.push(entry);
    tenant.waiting += 1;
    waiting += 1;
    if (!tenant.inRotation) {
      tenant.inRotation = true;
      rotation.push(tenant);
    }
    return {
      admitted: 'waiting',
      outcome,
      cancel() {
        if (entry.done) return;
        entry.done = true;
        tenant.waiting -= 1;
        waiting -= 1;
        entry.settle({ ...refuse(tenant, clock(), entry), reason: 'overloaded' });
      },
    };
  }

  /**
   * Requests that waited past QUEUE_TIMEOUT_MS (the API stalled) are refused as
   * overloaded, and tenants whose waiting requests all went (cancelled) leave the turns.
   */
  function expireWaiting(now: number): void {
    for (const tenant of rotation) {
      for (let next = tenant.oldest(); next !== undefined; next = tenant.oldest()) {
        if (now - next.since < QUEUE_TIMEOUT_MS) break;
        next.done = true;
        tenant.queueHead += 1;
        tenant.waiting -= 1;
        waiting -= 1;
        next.settle({ ...refuse(tenant, now, next), reason: 'overloaded' });
      }
    }
    const stillWaiting = rotation.filter((tenant) => tenant.waiting > 0);
    for (const tenant of rotation) if (tenant.waiting === 0) leaveRotation(tenant);
    rotation.splice(0, rotation.length, ...stillWaiting);
  }

  return {
    admit(id, cost, weight = 1) {
      if (concurrency === 0) return ADMITTED_UNTRACKED;
      const now = clock();
      const tenant = stateOf(id, weight);
      if (tenant.waiting === 0 && (inService < concurrency || tenant.inService < shareOf(tenant))) {
        return start(tenant, cost);
      }
      const oldest = tenant.oldest();
      if (oldest !== undefined && now - oldest.since > maxQueueMs) {
        return refuse(tenant, now, oldest);
      }
      return wait(tenant, now, cost);
    },
    finish(slot) {
      if (slot === null) return;
      const { tenant, cost } = slot;
      const now = clock();
      tenant.inService -= cost;
      inService -= cost;
      const decay = Math.exp(-Math.max(0, now - tenant.completedAt) / RATE_TIME_CONSTANT_MS);
      tenant.completedPerSecond = tenant.completedPerSecond * decay + 1000 / RATE_TIME_CONSTANT_MS;
      tenant.completedAt = now;
      dispatch(tenant);
      forgetIfIdle(tenant);
    },
    standingRefusal(id) {
      if (concurrency === 0) return undefined;
      const tenant = tenants.get(id);
      const oldest = tenant?.oldest();
      if (tenant === undefined || oldest === undefined) return undefined;
      const now = clock();
      return now - oldest.since > maxQueueMs ? refuse(tenant, now, oldest) : undefined;
    },
    state: () => ({
      inService,
      waiting,
      tenants: tenants.size,
      share: concurrency / Math.max(1, totalWeight),
    }),
    busiest: (count) =>
      [...tenants.values()]
        .sort((a, b) => b.inService + b.waiting - (a.inService + a.waiting))
        .slice(0, count)
        .map(({ id, inService: held, waiting: queued }) => ({
          tenant: id,
          inService: held,
          waiting: queued,
        })),
    close() {
      clearInterval(sweeper);
    },
  };
}
