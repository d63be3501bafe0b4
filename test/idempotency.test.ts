import { readQueueDepth } from '@ingest/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount } from './support/accounts.js';
import { articleData, sendEvent, uniqueSlug } from './support/content.js';
import { expectProblem } from './support/problems.js';
import { startTestApi, type TestApi } from './support/test-api.js';

let api: TestApi;
let key: string;
beforeAll(async () => {
  api = await startTestApi({ DATABASE_POOL_SIZE: '10' });
  const account = await registerAccount(api);
  ({ key } = await createKey(api, account));
});
afterAll(() => api.close());

const withKey = (idempotencyKey: string) => ({ 'idempotency-key': idempotencyKey });
const eventsWithRequestBody = (slug: string) =>
  api.deps.db.prisma.webhookLog.count({ where: { orderKeys: { has: slug } } });

describe('Idempotency-Key', () => {
  it('replays the original answer for the same key and body, with Idempotent-Replayed', async () => {
    const slug = uniqueSlug();
    const ikey = `create-${slug}`;
    const first = await sendEvent(api, key, 'article.create', articleData({ slug }), withKey(ikey));
    expect(first.statusCode).toBe(202);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The same body with its keys in another order is the same request.
    const { title, ...rest } = articleData({ slug });
    const again = await sendEvent(api, key, 'article.create', { ...rest, title }, withKey(ikey));
    expect(again.statusCode).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(again.headers.location).toBe(first.headers.location);
    expect(await eventsWithRequestBody(slug)).toBe(1);
    expect((await readQueueDepth(api.deps.queues.all)).counts.waiting).toBeGreaterThan(0);
  });

  it('refuses the same key with a different body: 422 IDEMPOTENCY_KEY_MISMATCH, recording nothing', async () => {
    const slug = uniqueSlug();
    const ikey = `mismatch-${slug}`;
    expect(
      (await sendEvent(api, key, 'article.create', articleData({ slug }), withKey(ikey)))
        .statusCode,
    ).toBe(202);
    const other = await sendEvent(
      api,
      key,
      'article.create',
      articleData({ slug, title: 'Changed' }),
      withKey(ikey),
    );
    expectProblem(other, 422, 'IDEMPOTENCY_KEY_MISMATCH');
    expect(await eventsWithRequestBody(slug)).toBe(1);
  });

  it('turns 200 concurrent identical requests into one event', async () => {
    const slug = uniqueSlug();
    const ikey = `burst-${slug}`;
    const responses = await Promise.all(
      Array.from({ length: 200 }, () =>
        sendEvent(api, key, 'article.create', articleData({ slug }), withKey(ikey)),
      ),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(200).fill(202));
    expect(new Set(responses.map((r) => r.json().id)).size).toBe(1);
    expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(199);
    expect(await eventsWithRequestBody(slug)).toBe(1);
    expect(await api.deps.queues.all[0]!.getJob(responses[0]!.json().id)).toBeDefined();
  });

  it('scopes keys to the account', async () => {
    const other = await registerAccount(api);
    const { key: otherKey } = await createKey(api, other);
    const ikey = `shared-${uniqueSlug()}`;
    const mine = await sendEvent(api, key, 'article.delete', { slug: 'a' }, withKey(ikey));
    const theirs = await sendEvent(api, otherKey, 'article.delete', { slug: 'a' }, withKey(ikey));
    expect(theirs.statusCode).toBe(202);
    expect(theirs.json().id).not.toBe(mine.json().id);
  });

  it('does not spend a key on a rejected request, so the corrected retry goes through', async () => {
    const slug = uniqueSlug();
    const ikey = `fix-${slug}`;
    expectProblem(
      await sendEvent(api, key, 'article.create', articleData({ slug, title: '' }), withKey(ikey)),
      400,
      'VALIDATION_FAILED',
    );
    expect(
      (await sendEvent(api, key, 'article.create', articleData({ slug }), withKey(ikey)))
        .statusCode,
    ).toBe(202);
  });

  it('frees a key once it is older than IDEMPOTENCY_KEY_TTL_HOURS', async () => {
    const ikey = `expiring-${uniqueSlug()}`;
    const first = await sendEvent(api, key, 'article.delete', { slug: 'x' }, withKey(ikey));
    await api.deps.db.prisma.idempotencyKey.updateMany({
      where: { key: ikey },
      data: { createdAt: new Date(Date.now() - 25 * 3_600_000) },
    });
    const later = await sendEvent(api, key, 'article.delete', { slug: 'y' }, withKey(ikey));
    expect(later.statusCode).toBe(202);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.json().id).not.toBe(first.json().id);
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['not printable ASCII', 'clé-\u00e9'],
  ])('refuses a key that is %s with 400', async (_label, ikey) => {
    const problem = expectProblem(
      await sendEvent(api, key, 'article.delete', { slug: 'x' }, withKey(ikey)),
      400,
      'VALIDATION_FAILED',
    );
    expect(problem.errors?.map((e) => e.path)).toEqual(['headers.idempotency-key']);
  });
});
