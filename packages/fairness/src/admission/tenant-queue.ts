/** A tenant's completions a second are an average over about this long... */
const RATE_TIME_CONSTANT_MS = 500;
/** ...which is trusted once the tenant has had work this long (it reads low until then). */
const RATE_WARM_MS = 1_000;

/** A request waiting for a place. `done` once started, refused or cancelled. */
export interface Waiting<Outcome = unknown> {
  since: number;
  cost: number;
  /** Answers the request: the queue itself never calls it. */
  settle: (outcome: Outcome) => void;
  done: boolean;
}

/**
 * One tenant in admission control: the places it holds, its requests waiting for one
 * (first come, first served), and how fast its requests complete. Kept a while after it
 * has no work (see createFairAdmission), so that its pace is known when it comes back.
 */
export class TenantQueue<Outcome = unknown> {
  weight = 1;
  /** Places held by its requests in service. */
  inService = 0;
  waiting = 0;
  /** Counted in the shares: it has a request in service or waiting. */
  active = false;
  idleSince: number;
  inRotation = false;
  private readonly queue: Array<Waiting<Outcome>> = [];
  private head = 0;
  private completedPerSecond = 0;
  private completedAt = 0;
  private readonly since: number;

  constructor(
    readonly id: string,
    now: number,
  ) {
    this.since = now;
    this.idleSince = now;
  }

  get busy(): boolean {
    return this.inService > 0 || this.waiting > 0;
  }

  push(entry: Waiting<Outcome>): void {
    this.queue.push(entry);
    this.waiting += 1;
  }

  /** The oldest request still waiting, dropping those settled meanwhile (cancelled). */
  oldest(): Waiting<Outcome> | undefined {
    while (this.head < this.queue.length && this.queue[this.head]!.done) this.head += 1;
    if (this.head === this.queue.length && this.head > 0) {
      this.queue.length = 0;
      this.head = 0;
    }
    return this.queue[this.head];
  }

  /** Takes the oldest waiting request out of the queue (to start or refuse it). */
  takeOldest(): Waiting<Outcome> | undefined {
    const next = this.oldest();
    if (next === undefined) return undefined;
    next.done = true;
    this.head += 1;
    this.waiting -= 1;
    return next;
  }

  /** A waiting request left by itself (its client went away). */
  cancelled(entry: Waiting<Outcome>): void {
    entry.done = true;
    this.waiting -= 1;
  }

  completed(now: number): void {
    this.completedPerSecond = this.rateAt(now) + 1000 / RATE_TIME_CONSTANT_MS;
    this.completedAt = now;
  }

  /** Its requests completed a second, as of `now` (a decaying average). */
  rateAt(now: number): number {
    const age = Math.max(0, now - this.completedAt);
    return this.completedPerSecond * Math.exp(-age / RATE_TIME_CONSTANT_MS);
  }

  /** How long its queue takes to drain at its pace, one more request included; 0: unknown yet. */
  drainMsAt(now: number): number {
    const rate = this.rateAt(now);
    if (now - this.since < RATE_WARM_MS || rate <= 0) return 0;
    return ((this.waiting + 1) * 1000) / rate;
  }
}
