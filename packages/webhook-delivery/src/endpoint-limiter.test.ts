import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createEndpointLimiter, type EndpointLimiter } from './endpoint-limiter.js';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test:endpoint-limiter:${randomUUID()}`;
/** Three connections, standing for three worker processes. */
const connections = [new Redis(redisUrl), new Redis(redisUrl), new Redis(redisUrl)];
const [one, two, three] = connections.map((redis) => createEndpointLimiter(redis, prefix)) as [
  EndpointLimiter,
  EndpointLimiter,
  EndpointLimiter,
];
const endpoint = () => `endpoint-${randomUUID()}`;

afterAll(async () => {
  const redis = connections[0]!;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await Promise.all(connections.map((redis) => redis.quit()));
});

describe('createEndpointLimiter', () => {
  it('grants an endpoint its rate, evenly, over every worker', async () => {
    const id = endpoint();
    const perSecond = 20;
    const durationMs = 2_500;
    const grants: number[] = [];
    const ends = Date.now() + durationMs;
    const loop = async (limiter: EndpointLimiter, name: string) => {
      for (let attempt = 0; Date.now() < ends; attempt += 1) {
        const delivery = `${name}-${attempt}`;
        const admission = await limiter.acquire(id, delivery, { perSecond, inFlight: null }, 1_000);
        if (!admission.granted) {
          await sleep(admission.retryInMs);
          continue;
        }
        grants.push(Date.now());
        await limiter.release(id, delivery);
      }
    };
    await Promise.all(
      [one, two, three].flatMap((limiter, worker) =>
        Array.from({ length: 8 }, (_, slot) => loop(limiter, `w${worker}-${slot}`)),
      ),
    );

    grants.sort((a, b) => a - b);
    // Windows are half-open, [t, t + 1000): the rate allows perSecond in one, and the
    // contract's one more leaves room for the jitter between a grant and its answer.
    const busiest = Math.max(
      ...grants.map((t, i) => grants.filter((u, j) => j >= i && u - t < 1_000).length),
    );
    expect(busiest).toBeLessThanOrEqual(perSecond + 1);
    expect(grants.length).toBeGreaterThanOrEqual(0.8 * perSecond * (durationMs / 1000));
  });

  it('holds at most inFlight leases at once, over every worker', async () => {
    const id = endpoint();
    const limits = { perSecond: null, inFlight: 2 };
    let held = 0;
    let most = 0;
    const ends = Date.now() + 1_000;
    const loop = async (limiter: EndpointLimiter, name: string) => {
      for (let attempt = 0; Date.now() < ends; attempt += 1) {
        const delivery = `${name}-${attempt}`;
        const admission = await limiter.acquire(id, delivery, limits, 5_000);
        if (!admission.granted) {
          expect(admission.retryInMs).toBeLessThanOrEqual(250);
          await sleep(admission.retryInMs);
          continue;
        }
        // Counted from the answer to the release's sending: within the lease's own time.
        held += 1;
        most = Math.max(most, held);
        await sleep(20);
        held -= 1;
        await limiter.release(id, delivery);
      }
    };
    await Promise.all(
      [one, two, three].flatMap((limiter, worker) =>
        Array.from({ length: 3 }, (_, slot) => loop(limiter, `w${worker}-${slot}`)),
      ),
    );
    expect(most).toBe(2);
  });

  it('lets the next attempt in on a release, or once an unreleased lease lapses', async () => {
    const id = endpoint();
    const limits = { perSecond: null, inFlight: 2 };
    expect(await one.acquire(id, 'a', limits, 10_000)).toEqual({ granted: true });
    expect(await two.acquire(id, 'b', limits, 300)).toEqual({ granted: true });
    const refused = await three.acquire(id, 'c', limits, 10_000);
    expect(refused).toMatchObject({ granted: false, retryInMs: expect.any(Number) });
    expect(refused.granted || refused.retryInMs).toBeLessThanOrEqual(250);

    await one.release(id, 'a');
    expect(await three.acquire(id, 'c', limits, 10_000)).toEqual({ granted: true });
    expect(await one.acquire(id, 'd', limits, 10_000)).toMatchObject({ granted: false });

    await sleep(400);
    expect(await one.acquire(id, 'd', limits, 10_000)).toEqual({ granted: true });
  });

  it('holds one lease for a delivery that acquires twice', async () => {
    const id = endpoint();
    const limits = { perSecond: null, inFlight: 2 };
    expect(await one.acquire(id, 'a', limits, 10_000)).toEqual({ granted: true });
    expect(await two.acquire(id, 'a', limits, 10_000)).toEqual({ granted: true });
    expect(await three.acquire(id, 'b', limits, 10_000)).toEqual({ granted: true });
    // At the cap, the lease it holds is renewed rather than refused.
    expect(await three.acquire(id, 'a', limits, 10_000)).toEqual({ granted: true });
    expect(await one.acquire(id, 'c', limits, 10_000)).toMatchObject({ granted: false });
    await two.release(id, 'a');
    expect(await one.acquire(id, 'c', limits, 10_000)).toEqual({ granted: true });
  });

  it('takes nothing when it refuses', async () => {
    const id = endpoint();
    const limits = { perSecond: 10, inFlight: 1 };
    expect(await one.acquire(id, 'a', limits, 10_000)).toEqual({ granted: true });
    const early = await two.acquire(id, 'b', limits, 10_000);
    expect(early).toMatchObject({ granted: false });
    await sleep(early.granted ? 0 : early.retryInMs + 10);
    // Refused for the lease only: had it taken the rate slot, the next acquire would wait.
    expect(await two.acquire(id, 'b', limits, 10_000)).toMatchObject({ granted: false });
    await one.release(id, 'a');
    expect(await two.acquire(id, 'b', limits, 10_000)).toEqual({ granted: true });
  });

  it('holds every attempt for a receiver\u2019s Retry-After', async () => {
    const id = endpoint();
    const limits = { perSecond: 50, inFlight: null };
    await one.holdFor(id, 300);
    const held = await two.acquire(id, 'a', limits, 1_000);
    expect(held).toMatchObject({ granted: false });
    const waitMs = held.granted ? 0 : held.retryInMs;
    expect(waitMs).toBeGreaterThan(200);
    expect(waitMs).toBeLessThanOrEqual(300);
    await sleep(waitMs + 10);
    expect(await three.acquire(id, 'a', limits, 1_000)).toEqual({ granted: true });
  });

  it('does not ask Redis about an endpoint without limits', async () => {
    const closed = new Redis(redisUrl, { lazyConnect: true, enableOfflineQueue: false });
    const limiter = createEndpointLimiter(closed, prefix);
    const none = { perSecond: null, inFlight: null };
    expect(await limiter.acquire(endpoint(), 'a', none, 1_000)).toEqual({ granted: true });
    await expect(
      limiter.acquire(endpoint(), 'a', { perSecond: 1, inFlight: null }, 1_000),
    ).rejects.toThrow();
    closed.disconnect();
  });
});
