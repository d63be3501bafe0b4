// The operators' view of accounts in the queue: who has the most waiting, since when,
// and each account's share of the service (weight, cap on events in flight).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { registerAdmin } from './support/admin.js';
import { accept, sendEvent } from './support/content.js';
import { expectProblem } from './support/problems.js';
import { startTestApi, type TestApi } from './support/test-api.js';

let api: TestApi;
let admin: RegisteredAccount;
beforeAll(async () => {
  // No worker runs: whatever is accepted stays queued.
  api = await startTestApi({ RATE_LIMIT_CONTENT_PER_ACCOUNT_PER_MINUTE: '3' });
  admin = await registerAdmin(api);
});
afterAll(() => api?.close());

const asAdmin = (method: 'GET' | 'PUT', url: string, payload?: object) =>
  api.app.inject({ method, url, headers: bearer(admin.token), ...(payload ? { payload } : {}) });

async function publisher() {
  const account = await registerAccount(api);
  return { account, key: (await createKey(api, account)).key };
}

describe("accounts' backlogs", () => {
  it('lists the accounts with the most unfinished events first, with their oldest waiting and share', async () => {
    const busy = await publisher();
    const light = await publisher();
    const acceptedFrom = Date.now();
    for (let i = 0; i < 3; i += 1) await accept(api, busy.key, 'article.delete', { slug: 'x' });
    await accept(api, light.key, 'article.delete', { slug: 'x' });

    const response = await asAdmin('GET', '/api/admin/queue/accounts?limit=100');
    const answeredBy = Date.now();
    expect(response.statusCode).toBe(200);
    const { accounts } = response.json<{
      accounts: Array<{ accountId: string; queued: number; oldestWaitingAgeSeconds: number }>;
    }>();
    const mine = accounts.filter((row) =>
      [busy.account.id, light.account.id].includes(row.accountId),
    );
    expect(mine).toMatchObject([
      {
        accountId: busy.account.id,
        handle: busy.account.handle,
        queued: 3,
        processing: 0,
        share: { weight: 1, maxInFlight: null },
      },
      { accountId: light.account.id, queued: 1 },
    ]);
    // Waiting since it was accepted: no longer than this test has taken since (the
    // database's clock, which keeps microseconds, may be a millisecond ahead of Date.now()).
    expect(mine[0]!.oldestWaitingAgeSeconds).toBeGreaterThanOrEqual(0);
    expect(mine[0]!.oldestWaitingAgeSeconds).toBeLessThanOrEqual(
      (answeredBy - acceptedFrom + 1) / 1000,
    );
    // The busiest first, across every account with a backlog.
    const backlogs = accounts.map((row) => row.queued);
    expect(backlogs).toEqual([...backlogs].sort((a, b) => b - a));
  });
});

describe("an account's share", () => {
  it('is set and read by operators, and refused to anyone else', async () => {
    const { account } = await publisher();
    const url = `/api/admin/accounts/${account.id}/share`;
    expect((await asAdmin('GET', url)).json()).toEqual({ weight: 1, maxInFlight: null });
    const set = await asAdmin('PUT', url, { weight: 4, maxInFlight: 16 });
    expect(set.statusCode).toBe(200);
    expect((await asAdmin('GET', url)).json()).toEqual({ weight: 4, maxInFlight: 16 });

    expectProblem(
      await asAdmin('PUT', url, { weight: 0, maxInFlight: null }),
      400,
      'VALIDATION_FAILED',
    );
    expectProblem(
      await asAdmin('PUT', `/api/admin/accounts/${randomUUID()}/share`, {
        weight: 2,
        maxInFlight: null,
      }),
      404,
      'NOT_FOUND',
    );
    const publisherCall = await api.app.inject({
      method: 'PUT',
      url,
      headers: bearer(account.token),
      payload: { weight: 1000, maxInFlight: null },
    });
    expectProblem(publisherCall, 403, 'FORBIDDEN');
  });

  it("multiplies the account's content rate limit by its weight", async () => {
    const { account, key } = await publisher();
    await asAdmin('PUT', `/api/admin/accounts/${account.id}/share`, {
      weight: 2,
      maxInFlight: null,
    });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      statuses.push((await sendEvent(api, key, 'article.delete', { slug: 'x' })).statusCode);
    }
    // 3 a minute times a weight of 2.
    expect(statuses).toEqual([202, 202, 202, 202, 202, 202, 429]);
  });
});
