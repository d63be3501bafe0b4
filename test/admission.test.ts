// Admission control and the per-account rate limit, from outside: a real API process
// flooded by one account's closed-loop clients, while probes and a quiet account go on.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { freePort } from '@ingest/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount } from './support/accounts.js';
import { accept, sendEvent } from './support/content.js';
import { expectProblem } from './support/problems.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startAppProcess, type AppProcess } from './support/worker-process.js';

const apis: TestApi[] = [];
afterAll(() => Promise.all(apis.map((api) => api.close())));
async function api(env: Record<string, string>): Promise<TestApi> {
  const started = await startTestApi(env);
  apis.push(started);
  return started;
}

describe('the per-account content rate limit', () => {
  it('counts every key of an account together, across API instances, and answers 429 with Retry-After and RateLimit-*', async () => {
    const first = await api({ RATE_LIMIT_CONTENT_PER_ACCOUNT_PER_MINUTE: '5' });
    // A second instance sharing Redis (same key prefix) counts against the same limit.
    const second = await startTestApi({
      RATE_LIMIT_CONTENT_PER_ACCOUNT_PER_MINUTE: '5',
      REDIS_KEY_PREFIX: `test:${first.tag}`,
    });
    apis.push(second);
    const account = await registerAccount(first);
    const keys = await Promise.all([1, 2, 3].map(() => createKey(first, account)));
    const [k1, k2, k3] = keys.map(({ key }) => key) as [string, string, string];

    const statuses = [];
    for (const key of [k1, k2, k3]) {
      statuses.push((await sendEvent(first, key, 'article.delete', { slug: 'x' })).statusCode);
    }
    const passing = await sendEvent(second, k1, 'article.delete', { slug: 'x' });
    expect(passing.headers['ratelimit-limit']).toBe('5');
    expect(passing.headers['ratelimit-remaining']).toBe('1');
    statuses.push(
      passing.statusCode,
      (await sendEvent(second, k2, 'article.delete', { slug: 'x' })).statusCode,
    );
    expect(statuses).toEqual([202, 202, 202, 202, 202]);

    // A sixth event is refused whichever key sends it: more keys buy no more events.
    const limited = await sendEvent(first, k3, 'article.delete', { slug: 'x' });
    expectProblem(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['ratelimit-limit']).toBe('5');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(Number(limited.headers['ratelimit-reset'])).toBeGreaterThan(0);
    // A refused request is not recorded, nor logged on its own; another account has its
    // own allowance.
    expect(await first.deps.db.prisma.webhookLog.count({ where: { accountId: account.id } })).toBe(
      5,
    );
    expect(first.logLines.filter((line) => line.includes('"statusCode":429'))).toEqual([]);
    const other = await createKey(first, await registerAccount(first));
    expect((await sendEvent(first, other.key, 'article.delete', { slug: 'x' })).statusCode).toBe(
      202,
    );
  });
});

describe('the per-account receipt rate limit', () => {
  it("counts an account's receipt reads, by key or token, and answers 429 past it", async () => {
    const limited = await api({ RATE_LIMIT_RECEIPTS_PER_ACCOUNT_PER_MINUTE: '3' });
    const account = await registerAccount(limited);
    const { key } = await createKey(limited, account);
    const id = await accept(limited, key, 'article.delete', { slug: 'x' });
    const read = (headers: Record<string, string>) =>
      limited.app.inject({ method: 'GET', url: `/api/webhooks/content/${id}`, headers });
    const statuses = [
      (await read({ 'x-api-key': key })).statusCode,
      (await read({ authorization: `Bearer ${account.token}` })).statusCode,
      (await read({ 'x-api-key': key })).statusCode,
    ];
    expect(statuses).toEqual([200, 200, 200]);
    const refused = await read({ authorization: `Bearer ${account.token}` });
    expectProblem(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['ratelimit-limit']).toBe('3');
    // Another account reads on.
    const other = await registerAccount(limited);
    const otherKey = (await createKey(limited, other)).key;
    const otherId = await accept(limited, otherKey, 'article.delete', { slug: 'x' });
    const theirs = await limited.app.inject({
      method: 'GET',
      url: `/api/webhooks/content/${otherId}`,
      headers: { 'x-api-key': otherKey },
    });
    expect(theirs.statusCode).toBe(200);
  });
});

describe('admission control, in a real API process', () => {
  const FLOOD_CONNECTIONS = 200;
  const FLOOD_MS = 3_000;
  const PROBES = 12;
  let server: AppProcess;
  let base: string;
  let home: TestApi;
  let flood: { key: string; receipt: string };
  let quiet: { key: string; receipt: string };

  beforeAll(async () => {
    home = await api({});
    const port = await freePort();
    // A few places and a short queue, so that one account's clients surely outrun them.
    server = await startAppProcess('apps/api/src/server.ts', /Server listening/, {
      REDIS_KEY_PREFIX: `test:${home.tag}`,
      JWT_SECRET: randomBytes(32).toString('hex'),
      PORT: String(port),
      ADMISSION_CONCURRENCY: '8',
      ADMISSION_MAX_QUEUE_MS: '20',
      // Admission control is what this measures, not the receipt rate limit.
      RATE_LIMIT_RECEIPTS_PER_ACCOUNT_PER_MINUTE: '10000000',
    });
    base = `http://127.0.0.1:${port}`;
    const publisher = async () => {
      const { key } = await createKey(home, await registerAccount(home));
      return { key, receipt: await accept(home, key, 'article.delete', { slug: 'x' }) };
    };
    [flood, quiet] = await Promise.all([publisher(), publisher()]);
  });
  afterAll(async () => {
    probeAgent.destroy();
    await server?.stop('SIGTERM');
  });

  const read = (path: string, key?: string) =>
    fetch(`${base}${path}`, { headers: key === undefined ? {} : { 'x-api-key': key } });

  // Probes go through an agent of their own: the flood's clients, in this same process,
  // would otherwise hold up their connections and the measure would be of this process.
  const probeAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const probe = (path: string, key?: string) =>
    new Promise<number>((resolve, reject) => {
      const request = http.get(
        `${base}${path}`,
        { agent: probeAgent, headers: key === undefined ? {} : { 'x-api-key': key } },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      request.on('error', reject);
    });

  it('slows a flooding account to its share and refuses its excess cheaply, while probes and a quiet account are always answered, and logs no line per refusal', async () => {
    const statuses = new Map<number, number>();
    const refusals: Response[] = [];
    // The flood lasts FLOOD_MS, and at least until the probes beside it made their rounds:
    // on a busy machine this process's own clients may slow them.
    const floodStarted = Date.now();
    const until = floodStarted + FLOOD_MS;
    let flooding = true;
    // Closed-loop clients: each sends its next request as soon as the last is answered.
    const clients = Array.from({ length: FLOOD_CONNECTIONS }, async () => {
      while (flooding) {
        const response = await read(`/api/webhooks/content/${flood.receipt}`, flood.key);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status !== 200 && refusals.length < 50) refusals.push(response);
        else await response.arrayBuffer();
      }
    });
    // Clients that give up mid-request (their own timeout): the places they held must
    // come back to the API, however far their requests had gone.
    let gaveUp = 0;
    let impatientRefused = 0;
    const impatient = Array.from({ length: 20 }, async () => {
      while (flooding) {
        const response = await fetch(`${base}/api/webhooks/content/${flood.receipt}`, {
          headers: { 'x-api-key': flood.key },
          signal: AbortSignal.timeout(1 + Math.floor(Math.random() * 20)),
        }).catch(() => undefined);
        if (response === undefined) gaveUp += 1;
        else {
          if (response.status !== 200) impatientRefused += 1;
          await response.arrayBuffer().catch(() => undefined);
        }
      }
    });
    const others: Array<{ what: string; status: number }> = [];
    const alongside = (async () => {
      while (Date.now() < until || others.length < PROBES) {
        for (const [what, path, key] of [
          ['live', '/health/live', undefined],
          ['ready', '/health/ready', undefined],
          ['metrics', '/metrics', undefined],
          ['quiet', `/api/webhooks/content/${quiet.receipt}`, quiet.key],
        ] as const) {
          others.push({ what, status: await probe(path, key) });
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      flooding = false;
    })();
    await Promise.all([...clients, ...impatient, alongside]);
    const floodMs = Date.now() - floodStarted;

    // The flood was served (its share) and refused (the rest), never failed.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    const refused = (statuses.get(429) ?? 0) + (statuses.get(503) ?? 0);
    expect(refused).toBeGreaterThan(0);
    expect([...statuses.keys()].every((status) => [200, 429, 503].includes(status))).toBe(true);
    for (const response of refusals) {
      const problem = (await response.json()) as { code: string };
      expect(problem.code).toBe(response.status === 429 ? 'RATE_LIMITED' : 'UNAVAILABLE');
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      if (response.status === 429) {
        expect(Number(response.headers.get('ratelimit-limit'))).toBeGreaterThanOrEqual(1);
        expect(response.headers.get('ratelimit-remaining')).toBe('0');
      }
    }
    // Probes, scrapes and the quiet account: answered every time, never refused.
    expect(others.length).toBeGreaterThanOrEqual(PROBES);
    expect(others.filter(({ status }) => status !== 200)).toEqual([]);

    // Every place came back once the clients were gone, those that gave up included.
    expect(gaveUp).toBeGreaterThan(0);
    const held = async () =>
      [
        ...(await (await read('/metrics')).text()).matchAll(
          /^ingest_admission_requests\{[^}]*\} (\d+)/gm,
        ),
      ]
        .map(([, n]) => Number(n))
        .reduce((sum, n) => sum + n, 0);
    await expect.poll(held, { timeout: 10_000, interval: 200 }).toBe(0);

    // The refusals were counted, and summed up in a few lines, not one line each.
    const metrics = await (await read('/metrics')).text();
    const counted = [
      ...metrics.matchAll(/^ingest_requests_refused_total\{reason="(\w+)"[^}]*\} (\d+)/gm),
    ]
      .filter(([, reason]) => reason !== 'rate_limit')
      .reduce((sum, [, , n]) => sum + Number(n), 0);
    // Every refusal the clients saw was counted; so were some of those that gave up first.
    expect(counted).toBeGreaterThanOrEqual(refused + impatientRefused);
    expect(counted).toBeLessThanOrEqual(refused + impatientRefused + gaveUp);
    // The first line is written at once, then at most one every 5 s while the flood lasted
    // (however long this machine made it last), and the last one after it.
    const summaries = () =>
      server.lines.filter((line) => line.includes('"msg":"refusing requests'));
    await expect.poll(() => summaries().length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    expect(summaries().length).toBeLessThanOrEqual(2 + Math.ceil(floodMs / 5_000));
    expect(server.lines.filter((line) => /"statusCode":(429|503)/.test(line))).toEqual([]);
  });
});
