// Recording an event of a line waits while another recording of the same line is not
// committed, so that within a line, sequence order is commit order: a worker can never
// see a later event of a line before an earlier one.
import { insertAccepted, type QueuedEvent } from '@ingest/event-log';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { uniqueSlug } from './support/content.js';
import { startTestApi, type TestApi } from './support/test-api.js';

let api: TestApi;
let account: RegisteredAccount;
let apiKeyId: string;
beforeAll(async () => {
  api = await startTestApi();
  account = await registerAccount(api);
  ({ id: apiKeyId } = await createKey(api, account));
});
afterAll(async () => {
  await api?.close();
});

const update = (slug: string): QueuedEvent => ({
  id: uuidv7(),
  accountId: account.id,
  apiKeyId,
  event: 'article.update',
  payload: { slug, title: 'x' },
  requestId: 'lines-test',
  orderKeys: [slug],
  notifyOnFinish: false,
});

const sequenceOf = async (id: string) =>
  (await api.deps.db.prisma.webhookLog.findUniqueOrThrow({ where: { id } })).sequence;

describe('recording events of one line', () => {
  it('waits for an uncommitted recording of the same line, and comes after it', async () => {
    const slug = uniqueSlug('line');
    const first = update(slug);
    const client = await api.deps.db.pool.connect();
    try {
      await client.query('BEGIN');
      await insertAccepted(client, [first]);

      const second = update(slug);
      let recorded = false;
      const secondDone = insertAccepted(api.deps.db.pool, [second]).then(() => {
        recorded = true;
      });
      const other = update(uniqueSlug('other'));
      await insertAccepted(api.deps.db.pool, [other]); // another line: no wait
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(recorded).toBe(false);

      await client.query('COMMIT');
      await secondDone;
      expect(await sequenceOf(second.id)).toBeGreaterThan(await sequenceOf(first.id));
    } finally {
      client.release();
    }
  });
});
