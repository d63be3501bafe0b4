import { TenantQueue as AnyTenantQueue, type Waiting as AnyWaiting } from './tenant-queue.js';

type TenantQueue = AnyTenantQueue<Admission>;
type Waiting = AnyWaiting<Admission>;

export interface AdmissionOptions {
  /**
   * Places: what requests hold while the API works on them (a request holds its cost in
   * places), shared fairly between tenants; 0 turns admission control off.
   */
  concurrency: number;
  /** How long a tenant's requests may wait; past it (see `standing`), new ones are refused. */
  maxQueueMs: number;
}

/**
 * Who a request counts against: its account, whichever key or token sends it
 * (`account:<id>`), or without one its client's address (`ip:<addr>`).
 */
export type Tenant = string;
export const tenantOfAccount = (accountId: string): Tenant => `account:${accountId}`;
export const tenantOfAddress = (address: string): Tenant => `ip:${address}`;

/** The places an admitted request holds until `finish`; null when admission control is off. */
export type Slot = { readonly tenant: TenantQueue; readonly cost: number } | null;

export type Refused = {
  admitted: false;
  /**
   * over_share (429): the tenant holds more than its share and is the one to slow down;
   * overloaded (503): it holds no more, and the API is full for everyone.
   */
  reason: 'over_share' | 'overloaded';
  retryAfterSeconds: number;
  /** The places each tenant may hold now; the tenant held `held` of them. */
  share: number;
  held: number;
};

export type Admission = { admitted: true; slot: Slot } | Refused;

/** A request that found the API full: `outcome` settles once a place frees, or it is refused. */
export interface Queued {
  admitted: 'waiting';
  outcome: Promise<Admission>;
  /** The client went away: it leaves its queue, holding nothing (`outcome` refuses it). */
  cancel(): void;
}

export interface AdmissionState {
  /** Places held by requests in service; requests waiting for a place. */
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
  standingRefusal(tenant: Tenant): Refused | undefined;
  state(): AdmissionState;
  /** The tenants holding or wanting the most places, for the refusal log. */
  busiest(count: number): Array<{ tenant: Tenant; inService: number; waiting: number }>;
  close(): void;
}

/** A waiting request is refused as overloaded after this long, whatever else happens. */
const QUEUE_TIMEOUT_MS = 10_000;
const MAX_RETRY_AFTER_SECONDS = 60;
/** A tenant with no work is forgotten after this long (its pace with it). */
const IDLE_FORGET_MS = 10_000;
const SWEEP_MS = 1_000;

const ADMITTED_UNTRACKED: Admission = { admitted: true, slot: null };

/**
 * Admission control: a fair scheduler in front of the API's work.
 *
 * The API works on at most `concurrency` places at once; beyond that, work only queues in
 * the database pool and the accept batcher, where every tenant waits behind every other.
 * A request that finds the API full waits, before its body is read, in its tenant's own
 * queue. A tenant under its share (the places, in proportion to its weight among the
 * tenants with work) is admitted at once, so a quiet tenant never waits behind a busy one.
 * A client polling in a closed loop is thus slowed to its share, never refused: refusing
 * it would make it ask again at once and turn the API's work into refusals.
 *
 * A tenant is refused only when its own queue stands (see `standing`), that is when its
 * arrivals outrun its share of what the API completes; the refusal costs a map lookup. An
 * account's keys and tokens are one tenant, so more keys buy no more share.
 *
 * Hand-written: the Node libraries at hand shed on event-loop utilisation or a fixed
 * concurrency limit, and none queues or refuses by tenant.
 */
export function createFairAdmission(
  options: AdmissionOptions,
  clock: () => number = () => performance.now(),
): FairAdmission {
  const { concurrency, maxQueueMs } = options;
  const tenants = new Map<Tenant, TenantQueue>();
  const rotation: TenantQueue[] = [];
  let inService = 0;
  let waiting = 0;
  /** Weights of the tenants with work, and how many they are. */
  let activeWeight = 0;
  let active = 0;
  const sweeper = setInterval(() => sweep(clock()), SWEEP_MS);
  sweeper.unref();

  /** A tenant's share of the places: its weight's part of all the tenants' with work. */
  const shareOf = (tenant: TenantQueue) =>
    (concurrency * tenant.weight) / (activeWeight + (tenant.active ? 0 : tenant.weight));

  function tenantOf(id: Tenant, weight: number, now: number): TenantQueue {
    let tenant = tenants.get(id);
    if (tenant === undefined) {
      tenant = new AnyTenantQueue<Admission>(id, now);
      tenants.set(id, tenant);
    }
    if (tenant.active) activeWeight += weight - tenant.weight;
    tenant.weight = weight;
    return tenant;
  }

  /** Counts a tenant in the shares while it has work, and out once it has none. */
  function update(tenant: TenantQueue, now: number): void {
    if (tenant.busy === tenant.active) return;
    tenant.active = tenant.busy;
    activeWeight += tenant.active ? tenant.weight : -tenant.weight;
    active += tenant.active ? 1 : -1;
    if (!tenant.active) tenant.idleSince = now;
  }

  function start(tenant: TenantQueue, cost: number, now: number): Admission {
    tenant.inService += cost;
    inService += cost;
    update(tenant, now);
    return { admitted: true, slot: { tenant, cost } };
  }

  function startOldest(tenant: TenantQueue, now: number): void {
    const next = tenant.takeOldest();
    if (next === undefined) return;
    waiting -= 1;
    next.settle(start(tenant, next.cost, now));
  }

  /** Free places go to the tenant that freed them while under its share, then round the others. */
  function dispatch(finished: TenantQueue, now: number): void {
    if (finished.inService < shareOf(finished)) startOldest(finished, now);
    while (inService < concurrency && rotation.length > 0) {
      const tenant = rotation.shift()!;
      startOldest(tenant, now);
      if (tenant.waiting > 0) rotation.push(tenant);
      else tenant.inRotation = false;
    }
  }

  /**
   * The oldest waiting request of a tenant whose queue stands: it has waited past
   * maxQueueMs, or at the tenant's pace the queue would take longer than that to drain.
   * (The oldest alone would let a fast flood fill, within maxQueueMs, a queue that then
   * takes far longer than that to drain.)
   */
  function standing(tenant: TenantQueue, now: number): Waiting | undefined {
    const oldest = tenant.oldest();
    if (oldest === undefined) return undefined;
    const over = now - oldest.since > maxQueueMs || tenant.drainMsAt(now) > maxQueueMs;
    return over ? oldest : undefined;
  }

  function refuse(tenant: TenantQueue, now: number, oldest: Waiting): Refused {
    const fair = shareOf(tenant);
    // Retry after the queue drains at the tenant's pace, or its oldest's wait if that is longer.
    const seconds = Math.max(tenant.drainMsAt(now), now - oldest.since) / 1000;
    return {
      admitted: false,
      reason: tenant.inService > fair ? 'over_share' : 'overloaded',
      retryAfterSeconds: Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(seconds))),
      share: fair,
      held: tenant.inService,
    };
  }

  function wait(tenant: TenantQueue, now: number, cost: number): Queued {
    let entry!: Waiting;
    const outcome = new Promise<Admission>((resolve) => {
      entry = { since: now, cost, settle: resolve, done: false };
    });
    tenant.push(entry);
    waiting += 1;
    update(tenant, now);
    if (!tenant.inRotation) {
      tenant.inRotation = true;
      rotation.push(tenant);
    }
    return {
      admitted: 'waiting',
      outcome,
      cancel() {
        if (entry.done) return;
        const at = clock();
        tenant.cancelled(entry);
        waiting -= 1;
        update(tenant, at);
        entry.settle({ ...refuse(tenant, at, entry), reason: 'overloaded' });
      },
    };
  }

  /** Refuses requests waiting past QUEUE_TIMEOUT_MS (the API stalled); forgets idle tenants. */
  function sweep(now: number): void {
    for (const tenant of rotation) {
      for (let next = tenant.oldest(); next !== undefined; next = tenant.oldest()) {
        if (now - next.since < QUEUE_TIMEOUT_MS) break;
        tenant.takeOldest();
        waiting -= 1;
        next.settle({ ...refuse(tenant, now, next), reason: 'overloaded' });
      }
      update(tenant, now);
    }
    const stillWaiting = rotation.filter((tenant) => tenant.waiting > 0);
    for (const tenant of rotation) if (tenant.waiting === 0) tenant.inRotation = false;
    rotation.splice(0, rotation.length, ...stillWaiting);
    for (const [id, tenant] of tenants) {
      if (!tenant.active && !tenant.inRotation && now - tenant.idleSince > IDLE_FORGET_MS) {
        tenants.delete(id);
      }
    }
  }

  return {
    admit(id, cost, weight = 1) {
      if (concurrency === 0) return ADMITTED_UNTRACKED;
      const now = clock();
      const tenant = tenantOf(id, weight, now);
      if (tenant.waiting === 0 && (inService < concurrency || tenant.inService < shareOf(tenant))) {
        return start(tenant, cost, now);
      }
      const oldest = standing(tenant, now);
      return oldest === undefined ? wait(tenant, now, cost) : refuse(tenant, now, oldest);
    },
    finish(slot) {
      if (slot === null) return;
      const { tenant, cost } = slot;
      const now = clock();
      tenant.inService -= cost;
      inService -= cost;
      tenant.completed(now);
      dispatch(tenant, now);
      update(tenant, now);
    },
    standingRefusal(id) {
      if (concurrency === 0) return undefined;
      const tenant = tenants.get(id);
      if (tenant === undefined) return undefined;
      const now = clock();
      const oldest = standing(tenant, now);
      return oldest === undefined ? undefined : refuse(tenant, now, oldest);
    },
    state: () => ({
      inService,
      waiting,
      tenants: active,
      share: concurrency / Math.max(1, activeWeight),
    }),
    busiest: (count) =>
      [...tenants.values()]
        .filter((tenant) => tenant.active)
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
