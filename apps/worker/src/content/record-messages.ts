import type { Article, Author, Highlight, OutgoingMessage } from '@ingest/contracts';
import { v7 as uuidv7 } from 'uuid';
import {
  accountOfChange,
  type ArticleState,
  type ContentChange,
  type HighlightState,
  type Tx,
} from './processors/index.js';

interface Subscriber {
  id: string;
  accountId: string;
  events: string[];
  /** The transaction's time: when the changes were applied. */
  at: Date;
}

export interface RecordedDelivery {
  deliveryId: string;
  eventId: string;
}

interface Names {
  authors: Map<string, Author>;
  categories: Map<string, string>;
}

/**
 * The outbox of outgoing webhooks: one message for each change that an enabled endpoint
 * of its account subscribes to, and one pending delivery for each such endpoint, written
 * in the transaction that applied the changes. A change that rolls back takes its message
 * with it; a committed one cannot lose it. Returns the deliveries' ids, to queue once the
 * transaction has committed.
 *
 * An account without endpoints costs one indexed read per transaction, whatever the
 * number of changes in it.
 */
export async function recordMessages(
  tx: Tx,
  changes: ContentChange[],
  firstAttemptDelayMs: number,
): Promise<RecordedDelivery[]> {
  if (changes.length === 0) return [];
  const accounts = [...new Set(changes.map(accountOfChange))];
  const subscribers = await tx.$queryRaw<Subscriber[]>`
    SELECT id, account_id AS "accountId", events,
           -- rounded as the stored timestamps are, so that messages and reads agree
           now()::timestamptz(3) AS at
    FROM webhook_endpoints
    WHERE account_id = ANY(${accounts}::uuid[]) AND enabled`;
  if (subscribers.length === 0) return [];
  const heard = changes.flatMap((change) => {
    const endpoints = subscribers.filter(
      (s) => s.accountId === accountOfChange(change) && s.events.includes(change.type),
    );
    return endpoints.length === 0 ? [] : [{ change, endpoints }];
  });
  if (heard.length === 0) return [];

  const names = await readNames(
    tx,
    heard.map(({ change }) => change),
  );
  const at = subscribers[0]?.at ?? new Date();
  const messages = heard.map(({ change, endpoints }) => ({
    id: uuidv7(),
    accountId: accountOfChange(change),
    eventId: change.eventId,
    type: change.type,
    body: JSON.stringify(messageOf(change, names, at)),
    endpoints,
  }));
  const deliveries = messages.flatMap((message) =>
    message.endpoints.map((endpoint) => ({
      id: uuidv7(),
      messageId: message.id,
      endpointId: endpoint.id,
      eventId: message.eventId,
    })),
  );
  const column = <Row, Key extends keyof Row>(rows: Row[], key: Key) => rows.map((row) => row[key]);
  await tx.$executeRaw`
    INSERT INTO webhook_messages (id, account_id, event_id, type, body, created_at)
    SELECT m.id, m.account_id, m.event_id, m.type, m.body, now()
    FROM unnest(${column(messages, 'id')}::uuid[], ${column(messages, 'accountId')}::uuid[],
                ${column(messages, 'eventId')}::uuid[], ${column(messages, 'type')}::text[],
                ${column(messages, 'body')}::text[]) AS m(id, account_id, event_id, type, body)`;
  await tx.$executeRaw`
    INSERT INTO webhook_deliveries (id, message_id, endpoint_id, next_attempt_at, created_at)
    SELECT d.id, d.message_id, d.endpoint_id,
           now() + make_interval(secs => ${firstAttemptDelayMs / 1000}::float8), now()
    FROM unnest(${column(deliveries, 'id')}::uuid[], ${column(deliveries, 'messageId')}::uuid[],
                ${column(deliveries, 'endpointId')}::uuid[]) AS d(id, message_id, endpoint_id)`;
  return deliveries.map(({ id, eventId }) => ({ deliveryId: id, eventId }));
}

/** The authors' and categories' names the messages show, in one statement. */
async function readNames(tx: Tx, changes: ContentChange[]): Promise<Names> {
  const accounts = [...new Set(changes.map(accountOfChange))];
  const categories = [
    ...new Set(
      changes.flatMap((change) =>
        'article' in change && change.article.categoryId !== null
          ? [change.article.categoryId]
          : [],
      ),
    ),
  ];
  const rows = await tx.$queryRaw<Array<{ id: string; name: string; handle: string | null }>>`
    SELECT id, name, handle FROM accounts WHERE id = ANY(${accounts}::uuid[])
    UNION ALL
    SELECT id, name, NULL FROM categories WHERE id = ANY(${categories}::uuid[])`;
  const names: Names = { authors: new Map(), categories: new Map() };
  for (const { id, name, handle } of rows) {
    if (handle === null) names.categories.set(id, name);
    else names.authors.set(id, { handle, name });
  }
  return names;
}

function messageOf(change: ContentChange, names: Names, at: Date): OutgoingMessage {
  const timestamp = at.toISOString();
  if (change.type === 'highlight.created') {
    return {
      type: change.type,
      timestamp,
      data: { highlight: highlightOf(change.highlight, names), eventId: change.eventId },
    };
  }
  return {
    type: change.type,
    timestamp,
    data: {
      article: articleOf(change.article, names, at),
      version: change.version,
      eventId: change.eventId,
    },
  };
}

function authorOf(names: Names, accountId: string): Author {
  const author = names.authors.get(accountId);
  if (author === undefined) throw new Error(`account ${accountId} was not read`);
  return author;
}

/** As GET /api/articles/:slug shows it (apps/api/src/services/reads/articles.ts). */
const articleOf = (article: ArticleState, names: Names, at: Date): Article => ({
  slug: article.slug,
  title: article.title,
  excerpt: article.excerpt,
  cover: article.cover,
  category: article.categoryId === null ? null : (names.categories.get(article.categoryId) ?? null),
  readMinutes: article.readMinutes,
  version: article.version,
  author: authorOf(names, article.accountId),
  createdAt: (article.createdAt ?? at).toISOString(),
  updatedAt: (article.updatedAt ?? at).toISOString(),
  body: article.body,
});

/** As GET /api/highlights shows it (apps/api/src/services/reads/highlights.ts). */
const highlightOf = (highlight: HighlightState, names: Names): Highlight => ({
  id: highlight.id,
  title: highlight.title,
  videoUrl: highlight.videoUrl,
  thumbnailUrl: highlight.thumbnailUrl,
  durationSeconds: highlight.durationSeconds,
  description: highlight.description,
  tags: highlight.tags,
  article: highlight.article,
  author: authorOf(names, highlight.accountId),
  createdAt: highlight.createdAt.toISOString(),
});
