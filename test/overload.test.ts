import { afterAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount } from './support/accounts.js';
import { sendEvent } from './support/content.js';
import { expectProblem } from './support/problems.js';
import { startTestApi, type TestApi } from './support/test-api.js';

const apis: TestApi[] = [];
afterAll(() => Promise.all(apis.map((api) => api.close())));
async function api(env: Record<string, string>): Promise<TestApi> {
  const started = await startTestApi(env);
  apis.push(started);
  return started;
}

describe('the per-key rate limit on the content endpoint', () => {
  it('answers 429 RATE_LIMITED with Retry-After and RateLimit-* headers, per key, across API instances', async () => {
    const first = await api({ RATE_LIMIT_CONTENT_PER_KEY_PER_MINUTE: '5' });
    // A second instance sharing Redis (same key prefix) counts against the same limit.
    const second = await startTestApi({
      RATE_LIMIT_CONTENT_PER_KEY_PER_MINUTE: '5',
      REDIS_KEY_PREFIX: `test:${first.tag}`,
    });
    apis.push(second);
    const account = await registerAccount(first);
    const { key } = await createKey(first, account);
    const { key: otherKey } = await createKey(first, account);

    const statuses = [];
    for (let i = 0; i < 3; i += 1)
      statuses.push((await sendEvent(first, key, 'article.delete', { slug: 'x' })).statusCode);
    const passing = await sendEvent(second, key, 'article.delete', { slug: 'x' });
    expect(passing.headers['ratelimit-limit']).toBe('5');
    expect(passing.headers['ratelimit-remaining']).toBe('1');
    statuses.push(
      passing.statusCode,
      (await sendEvent(second, key, 'article.delete', { slug: 'x' })).statusCode,
    );
    expect(statuses).toEqual([202, 202, 202, 202, 202]);

    const limited = await sendEvent(first, key, 'article.delete', { slug: 'x' });
    expectProblem(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['ratelimit-limit']).toBe('5');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(Number(limited.headers['ratelimit-reset'])).toBeGreaterThan(0);
    // A refused request is not recorded, and another key has its own allowance.
    expect(await first.deps.db.prisma.webhookLog.count({ where: { accountId: account.id } })).toBe(
      5,
    );
    expect((await sendEvent(first, otherKey, 'article.delete', { slug: 'x' })).statusCode).toBe(
      202,
    );
  });
});

describe('load shedding', () => {
  it('answers 503 UNAVAILABLE with Retry-After while the event loop is saturated, then recovers', async () => {
    const shedding = await api({ SHED_LOAD_EVENT_LOOP_UTILIZATION_PERMILLE: '950' });
    const account = await registerAccount(shedding);
    const { key } = await createKey(shedding, account);
    expect((await sendEvent(shedding, key, 'article.delete', { slug: 'x' })).statusCode).toBe(202);

    // Keep the event loop busy for over two sampling intervals (1 s each), as a flood of
    // work would: busy slices with no idle time between them, so that the sampler's timer
    // still fires and sees a whole interval of work. A few tries absorb a busy machine.
    // An API that idled first must still shed: utilisation is that of the last interval,
    // not an average since start-up that the idle seconds would hold down.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    let shed = await sendEvent(shedding, key, 'article.delete', { slug: 'x' });
    for (let burst = 0; burst < 3 && shed.statusCode !== 503; burst += 1) {
      await saturateEventLoop(2_500);
      shed = await sendEvent(shedding, key, 'article.delete', { slug: 'x' });
    }
    expectProblem(shed, 503, 'UNAVAILABLE');
    expect(shed.headers['retry-after']).toBe('2');

    await expect
      .poll(
        async () => (await sendEvent(shedding, key, 'article.delete', { slug: 'x' })).statusCode,
        { timeout: 5_000, interval: 200 },
      )
      .toBe(202);
  });
});

/** Busy for `ms`, in slices of 50 ms that yield only to what is already due (timers). */
async function saturateEventLoop(ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const sliceEnd = Math.min(until, Date.now() + 50);
    while (Date.now() < sliceEnd) {
      /* busy */
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}
