import { afterEach, describe, expect, it } from 'vitest';
import {
  createFairAdmission,
  type Admission,
  type FairAdmission,
  type Queued,
  type Slot,
} from './fair-admission.js';

let now = 0;
const opened: FairAdmission[] = [];
afterEach(() => {
  opened.splice(0).forEach((admission) => admission.close());
  now = 0;
});

function admissionOf(concurrency: number, maxQueueMs = 50): FairAdmission {
  const admission = createFairAdmission({ concurrency, maxQueueMs }, () => now);
  opened.push(admission);
  return admission;
}

function admitted(outcome: Admission | Queued): Slot {
  if (outcome.admitted !== true) throw new Error(`not admitted: ${JSON.stringify(outcome)}`);
  return outcome.slot;
}

function queued(outcome: Admission | Queued): Queued {
  if (outcome.admitted !== 'waiting') throw new Error(`not queued: ${JSON.stringify(outcome)}`);
  return outcome;
}

/** Whether the promise settled by now (after the microtasks queued so far). */
async function settled<T>(promise: Promise<T>): Promise<T | 'pending'> {
  return Promise.race([promise, Promise.resolve().then(() => 'pending' as const)]);
}

describe('fair admission', () => {
  it('works on up to `concurrency` places, queues the rest, and starts the oldest when one frees', async () => {
    const admission = admissionOf(2);
    const first = admitted(admission.admit('a', 1));
    admitted(admission.admit('a', 1));
    const third = queued(admission.admit('a', 1));
    const fourth = queued(admission.admit('a', 1));
    expect(admission.state()).toMatchObject({ inService: 2, waiting: 2, tenants: 1 });

    admission.finish(first);
    expect(await settled(third.outcome)).toMatchObject({ admitted: true });
    expect(await settled(fourth.outcome)).toBe('pending');
    expect(admission.state()).toMatchObject({ inService: 2, waiting: 1 });
  });

  it('admits a tenant holding less than its share at once, however full the API is', () => {
    const admission = admissionOf(4);
    for (let i = 0; i < 4; i += 1) admitted(admission.admit('busy', 1));
    queued(admission.admit('busy', 1));
    // Two tenants: a share of 2 places each. The quiet one holds none.
    const quiet = admission.admit('quiet', 1);
    expect(quiet.admitted).toBe(true);
    expect(admission.state()).toMatchObject({ inService: 5, waiting: 1, tenants: 2 });
  });

  it('hands places freed by others to the waiting tenants in turn', async () => {
    const admission = admissionOf(3);
    // Three tenants hold one place each (a share of 1): b's and c's next requests wait.
    const leaving = admitted(admission.admit('x', 1));
    const bSlot = admitted(admission.admit('b', 1));
    admitted(admission.admit('c', 1));
    const b = queued(admission.admit('b', 1));
    const c = queued(admission.admit('c', 1));
    const c2 = queued(admission.admit('c', 1));
    const order: string[] = [];
    void b.outcome.then(() => order.push('b'));
    void c.outcome.then(() => order.push('c'));
    void c2.outcome.then(() => order.push('c2'));

    // x leaves: its place goes to the first tenant in turn, b; then b's own place, to c.
    admission.finish(leaving);
    await Promise.resolve();
    expect(order).toEqual(['b']);
    admission.finish(bSlot);
    await Promise.resolve();
    expect(order).toEqual(['b', 'c']);
    expect(admission.state()).toMatchObject({ inService: 3, waiting: 1, tenants: 2 });
  });

  it('refuses a tenant whose own queue has stood past maxQueueMs (429 over its share), and only that tenant', () => {
    const admission = admissionOf(4, 50);
    // flood took every place while alone; quiet then holds one: flood holds 3 of a share of 2.
    const floodSlot = admitted(admission.admit('flood', 1));
    for (let i = 0; i < 3; i += 1) admitted(admission.admit('flood', 1));
    admission.finish(floodSlot);
    admitted(admission.admit('quiet', 1));
    queued(admission.admit('flood', 1));
    now = 51;
    const refused = admission.admit('flood', 1);
    expect(refused).toMatchObject({ admitted: false, reason: 'over_share', share: 2, held: 3 });
    if (refused.admitted !== false) throw new Error('unreachable');
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // quiet is under its share: admitted at once, never refused.
    expect(admission.admit('quiet', 1).admitted).toBe(true);
  });

  it("refuses once the tenant's queue would take longer than maxQueueMs to drain at its pace", () => {
    const admission = admissionOf(1, 50);
    // A steady tenant: a request a millisecond for 1.5 s, one at a time (1,000 a second).
    let slot = admitted(admission.admit('a', 1));
    for (now = 1; now <= 1_500; now += 1) {
      admission.finish(slot);
      slot = admitted(admission.admit('a', 1));
    }
    // At its pace, about 50 waiting drain in 50 ms: later ones would wait longer, and are
    // refused, though the oldest has not waited at all yet (a fast flood fills at once).
    const outcomes = Array.from({ length: 80 }, () => admission.admit('a', 1));
    const waiting = outcomes.filter((outcome) => outcome.admitted === 'waiting').length;
    expect(waiting).toBeGreaterThanOrEqual(45);
    expect(waiting).toBeLessThanOrEqual(51);
    expect(outcomes.at(-1)).toMatchObject({ admitted: false });
  });

  it('answers 503 (overloaded), not 429, to a tenant refused while holding no more than its share', () => {
    const admission = admissionOf(2, 50);
    admitted(admission.admit('a', 1));
    admitted(admission.admit('a', 1));
    queued(admission.admit('a', 1));
    now = 60;
    // Alone, a holds its whole share: the API is full for everyone, a is not taking more.
    expect(admission.admit('a', 1)).toMatchObject({ admitted: false, reason: 'overloaded' });
  });

  it('counts places by cost: a cost-4 request holds four', () => {
    const admission = admissionOf(8);
    admitted(admission.admit('a', 4));
    admitted(admission.admit('a', 4));
    expect(admission.state().inService).toBe(8);
    queued(admission.admit('a', 1));
  });

  it('lets a cancelled request leave its queue, and forgets tenants with nothing left', async () => {
    const admission = admissionOf(1);
    const slot = admitted(admission.admit('a', 1));
    const gone = queued(admission.admit('a', 1));
    const next = queued(admission.admit('a', 1));
    gone.cancel();
    expect(await settled(gone.outcome)).toMatchObject({ admitted: false });
    expect(admission.state().waiting).toBe(1);
    admission.finish(slot);
    const started = await settled(next.outcome);
    expect(started).toMatchObject({ admitted: true });
    if (started === 'pending' || started.admitted !== true) throw new Error('unreachable');
    admission.finish(started.slot);
    expect(admission.state()).toEqual({ inService: 0, waiting: 0, tenants: 0, share: 1 });
  });

  it('admits everything, holding nothing, when turned off (concurrency 0)', () => {
    const admission = admissionOf(0);
    for (let i = 0; i < 100; i += 1)
      expect(admission.admit('a', 4)).toEqual({ admitted: true, slot: null });
    expect(admission.state().inService).toBe(0);
  });
});
