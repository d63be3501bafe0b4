// Events about one slug take effect in the order the API accepted them, with many
// workers at once; and a job run more than once has the effect of one run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount } from './support/accounts.js';
import { accept, articleData, finalReceipt, uniqueSlug } from './support/content.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

let api: TestApi;
let workers: WorkerProcess[];
let key: string;
let accountId: string;
beforeAll(async () => {
  api = await startTestApi();
  workers = await Promise.all([
    startWorkerProcess(api.tag, { WORKER_CONCURRENCY: '8' }),
    startWorkerProcess(api.tag, { WORKER_CONCURRENCY: '8' }),
  ]);
  const account = await registerAccount(api);
  accountId = account.id;
  ({ key } = await createKey(api, account));
});
afterAll(async () => {
  await Promise.all((workers ?? []).map((worker) => worker.stop()));
  await api?.close();
});

type Step = [event: string, data: Record<string, unknown>];
interface Script {
  steps: Step[];
  /** What must exist at the end: slug -> title; and slugs that must not. */
  present: Record<string, string>;
  absent: string[];
}

function scriptFor(i: number): Script {
  const slug = uniqueSlug(`order${i}`);
  const steps: Step[] = [['article.create', articleData({ slug, title: 'v0' })]];
  for (let k = 1; k <= 8; k += 1) {
    steps.push(['article.update', { slug, title: `v${k}`, body: [`body ${k}`] }]);
    if (k === 4)
      steps.push([
        'highlight.create',
        { title: 'clip', videoUrl: 'https://v.example/c', articleSlug: slug },
      ]);
  }
  if (i % 3 === 0) {
    steps.push(['article.delete', { slug }]);
    return { steps, present: {}, absent: [slug] };
  }
  if (i % 3 === 1) {
    steps.push(
      ['article.delete', { slug }],
      ['article.create', articleData({ slug, title: 'reborn' })],
      ['article.update', { slug, title: 'final' }],
    );
    return { steps, present: { [slug]: 'final' }, absent: [] };
  }
  const moved = `${slug}-moved`;
  steps.push(
    ['article.update', { slug, newSlug: moved }],
    ['article.update', { slug: moved, excerpt: 'moved' }],
  );
  return { steps, present: { [moved]: 'v8' }, absent: [slug] };
}

describe('ordering', () => {
  it('applies 200+ interleaved events over 20 slugs in acceptance order, with two workers of concurrency 8', async () => {
    const scripts = Array.from({ length: 20 }, (_, i) => scriptFor(i));
    const accepted: Array<{ script: number; id: string }> = [];
    // Round-robin over the slugs, each sent without waiting for the previous to be applied.
    for (let position = 0; position < 13; position += 1) {
      for (const [index, script] of scripts.entries()) {
        const step = script.steps[position];
        if (step === undefined) continue;
        accepted.push({ script: index, id: await accept(api, key, step[0], step[1]) });
      }
    }
    expect(accepted.length).toBeGreaterThanOrEqual(200);

    const receipts = new Map<string, Awaited<ReturnType<typeof finalReceipt>>>();
    for (const { id } of accepted) receipts.set(id, await finalReceipt(api, key, id, 60_000));
    const failed = [...receipts.values()].filter((receipt) => receipt.status !== 'succeeded');
    expect(failed, JSON.stringify(failed.slice(0, 3))).toEqual([]);

    for (const script of scripts) {
      for (const [slug, title] of Object.entries(script.present)) {
        expect(
          (await api.deps.db.prisma.article.findUnique({ where: { slug } }))?.title,
          slug,
        ).toBe(title);
      }
      for (const slug of script.absent) {
        expect(await api.deps.db.prisma.article.findUnique({ where: { slug } }), slug).toBeNull();
      }
    }
    // Each event of a slug started applying only after the one before it was committed.
    for (const [index] of scripts.entries()) {
      const finished = accepted
        .filter((entry) => entry.script === index)
        .map((entry) => Date.parse(receipts.get(entry.id)!.finishedAt as string));
      expect(finished).toEqual([...finished].sort((a, b) => a - b));
    }
  }, 120_000);
});

describe('duplicate jobs', () => {
  it('running a finished event again changes nothing', async () => {
    const slug = uniqueSlug();
    const id = await accept(api, key, 'article.create', articleData({ slug }));
    const before = await finalReceipt(api, key, id);
    const again = await api.deps.queues.all[0]!.add(
      'article.create',
      { eventId: id, requestId: 'replay', accountId },
      { jobId: `again-${id}` },
    );
    await expect.poll(() => again.getState(), { timeout: 20_000 }).toBe('completed');
    expect(await finalReceipt(api, key, id)).toEqual(before);
    expect(await api.deps.db.prisma.article.count({ where: { slug: { startsWith: slug } } })).toBe(
      1,
    );
  });

  it('six copies of one job run at once apply the event once', async () => {
    const slug = uniqueSlug();
    const data = articleData({ title: `Dup ${slug}` });
    const id = await accept(api, key, 'article.create', data);
    const copies = await Promise.all(
      Array.from({ length: 5 }, (_, copy) =>
        api.deps.queues.all[0]!.add(
          'article.create',
          { eventId: id, requestId: 'copy', accountId },
          { jobId: `copy-${copy}-${id}` },
        ),
      ),
    );
    const receipt = await finalReceipt(api, key, id);
    expect(receipt.status).toBe('succeeded');
    for (const copy of copies) {
      await expect.poll(() => copy.getState(), { timeout: 20_000 }).toBe('completed');
    }
    const created = await api.deps.db.prisma.article.findMany({ where: { title: data.title } });
    expect(created).toHaveLength(1);
    const attempts = await api.deps.db.prisma.eventAttempt.findMany({ where: { eventId: id } });
    expect(attempts.filter((attempt) => attempt.outcome === 'succeeded')).toHaveLength(1);
    expect(
      attempts.every((attempt) => ['succeeded', 'duplicate'].includes(attempt.outcome ?? '')),
    ).toBe(true);
  });
});
