// How deliveries flowed to one endpoint, judged at its receiver. With a rate, it got no
// more than it asked for, in any second or at once. And each slug's messages came in the
// order their changes were accepted (the slug is their line): a message's first request
// only once the one before it had been answered with a 2xx, and the article's versions
// counting up in the order they were taken (1 again only with a new create).
import type { DeliveriesSnapshot } from './deliveries-queries.js';
import { accepted, toldOf, type EndpointRecord } from './endpoint-records.js';
import type { ReceivedRequest } from './webhook-receivers.js';

export interface FlowCounts {
  /** The most requests that arrived within one second, and that were open at once. */
  mostInOneSecond: number;
  mostAtOnce: number;
  /** Slugs with two messages or more for it, whose order was checked. */
  lines: number;
}

/** A message the endpoint is to be told of, in its line. */
interface InLine {
  webhookId: string;
  type: string;
  version: number;
}

/** An endpoint told of every article type has every version of an article: they count up. */
const ARTICLE_TYPES = ['article.created', 'article.updated', 'article.deleted'];

export function checkFlow(
  snapshot: DeliveriesSnapshot,
  endpoint: EndpointRecord,
  problems: string[],
): FlowCounts {
  const { requests, rate, name } = endpoint;
  const counts = {
    mostInOneSecond: mostInOneSecond(requests),
    mostAtOnce: mostAtOnce(requests),
    lines: 0,
  };
  if (rate !== undefined && counts.mostInOneSecond > rate.perSecond + 1) {
    problems.push(
      `${name} got ${counts.mostInOneSecond} requests in one second, over its rate of ${rate.perSecond}`,
    );
  }
  if (rate !== undefined && counts.mostAtOnce > rate.inFlight) {
    problems.push(
      `${name} had ${counts.mostAtOnce} requests open at once, over its ${rate.inFlight}`,
    );
  }

  const firstAt = new Map<string, number>();
  const firstTaken = new Map<string, number>();
  for (const request of requests) {
    if (!firstAt.has(request.webhookId)) firstAt.set(request.webhookId, request.at);
    if (accepted(request) && !firstTaken.has(request.webhookId)) {
      firstTaken.set(request.webhookId, request.closedAt ?? request.at);
    }
  }
  const countsUp = ARTICLE_TYPES.every((type) => endpoint.events.includes(type));
  for (const [slug, line] of linesOf(snapshot, endpoint)) {
    if (line.length < 2) continue;
    counts.lines += 1;
    const text = (told: InLine) => `${told.type} v${told.version}`;
    for (let index = 1; index < line.length; index += 1) {
      const before = line[index - 1]!;
      const next = line[index]!;
      const answered = firstTaken.get(before.webhookId);
      const started = firstAt.get(next.webhookId);
      if (answered === undefined || started === undefined || started >= answered) continue;
      problems.push(
        `${name} got ${slug}'s ${text(next)} ${answered - started} ms before its ${text(before)} was answered`,
      );
    }
    if (!countsUp) continue;
    const taken = line
      .filter((told) => told.type.startsWith('article.') && firstTaken.has(told.webhookId))
      .sort((a, b) => firstTaken.get(a.webhookId)! - firstTaken.get(b.webhookId)!);
    const upward = taken.every(
      (told, index) =>
        told.version ===
        (told.type === 'article.created' ? 1 : (taken[index - 1]?.version ?? 0) + 1),
    );
    if (!upward) {
      problems.push(
        `${name} took ${slug}'s article versions out of order: ${taken.map(text).join(', ')}`,
      );
    }
  }
  return counts;
}

/** Slug -> the messages the endpoint is to be told of about it, in acceptance order. */
function linesOf(snapshot: DeliveriesSnapshot, endpoint: EndpointRecord): Map<string, InLine[]> {
  const messageOf = new Map(snapshot.messages.map((message) => [message.eventId, message]));
  const lines = new Map<string, InLine[]>();
  for (const event of snapshot.events) {
    const message = messageOf.get(event.id);
    if (event.status !== 'succeeded' || event.slug === null || message === undefined) continue;
    if (!toldOf(endpoint, event)) continue;
    const { data } = JSON.parse(message.body) as { data: { version: number } };
    const told = { webhookId: `msg_${message.id}`, type: message.type, version: data.version };
    lines.set(event.slug, [...(lines.get(event.slug) ?? []), told]);
  }
  return lines;
}

/** The most requests that arrived within any 1,000 ms. */
function mostInOneSecond(requests: ReceivedRequest[]): number {
  const times = requests.map((request) => request.at).sort((a, b) => a - b);
  let most = 0;
  for (let from = 0, to = 0; to < times.length; to += 1) {
    while (times[to]! - times[from]! >= 1_000) from += 1;
    most = Math.max(most, to - from + 1);
  }
  return most;
}

/** The most requests open at once: arrived whole, not yet answered nor cut. */
function mostAtOnce(requests: ReceivedRequest[]): number {
  // At one instant, an answer comes before an arrival: they were not open together.
  const steps = requests
    .flatMap((request) => [
      { at: request.at, step: 1 },
      { at: request.closedAt ?? request.at, step: -1 },
    ])
    .sort((a, b) => a.at - b.at || a.step - b.step);
  let open = 0;
  let most = 0;
  for (const { step } of steps) {
    open += step;
    most = Math.max(most, open);
  }
  return most;
}
