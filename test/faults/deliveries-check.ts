// The verdict on outgoing webhooks: what each receiver got, against the events that
// succeeded and the messages and deliveries PostgreSQL holds. At least once: every change
// applied is delivered (a request the receiver answered with a 2xx) to every endpoint
// subscribed to its type, signed with that endpoint's secret; nothing reaches anyone about
// a change that did not happen; duplicates (the same webhook-id again) are allowed, and
// counted.
import { OutgoingMessageSchema } from '@ingest/events';
import { Webhook } from 'standardwebhooks';
import type { DeliveriesSnapshot, EventOutcome, MessageRow } from './deliveries-queries.js';
import type { ReceivedRequest } from './webhook-receivers.js';

/** The outgoing type of the change each incoming event applies when it succeeds. */
const OUTGOING_TYPE: Record<string, string> = {
  'article.create': 'article.created',
  'article.update': 'article.updated',
  'article.delete': 'article.deleted',
  'highlight.create': 'highlight.created',
};
const outgoingTypeOf = (event: EventOutcome) => OUTGOING_TYPE[event.event ?? ''] ?? '?';
const accepted = (request: ReceivedRequest) =>
  typeof request.answer === 'number' && request.answer >= 200 && request.answer < 300;

// A dead process's connections close as it dies: a cut this soon after a SIGKILL is its.
const DEATH_CUTS_WITHIN_MS = 500;
/** Whether the request was held open when a worker was killed at `kill`, and cut as it died. */
const cutBy = (kill: number, { answer, at, closedAt = 0 }: ReceivedRequest) =>
  answer === 'cut' && at < kill && closedAt >= kill && closedAt - kill < DEATH_CUTS_WITHIN_MS;

/** An endpoint as registered, with every request its receiver got. */
export interface EndpointRecord {
  /** The receiver's name, which says how it misbehaved. */
  name: string;
  id: string;
  secret: string;
  /** The types it subscribes to. */
  events: string[];
  requests: ReceivedRequest[];
}

export interface EndpointCounts {
  name: string;
  /** Messages of a type it subscribes to: each must reach it. */
  messages: number;
  requests: number;
  /** Requests beyond the first of each webhook-id. */
  duplicates: number;
  /** Of those, requests for a webhook-id the receiver had already answered with a 2xx. */
  afterSuccess: number;
  /** Requests held open when a worker was SIGKILLed, and cut as it died. */
  cutByDeath: number;
  /** Attempts the deliveries recorded, and those that failed before the success. */
  attempts: number;
  failedAttempts: number;
  maxAttempts: number;
}

export interface DeliveriesReport {
  problems: string[];
  events: number;
  succeeded: number;
  messages: number;
  deliveries: number;
  endpoints: EndpointCounts[];
}

const byKey = <Item>(items: Item[], key: (item: Item) => string): Map<string, Item[]> => {
  const groups = new Map<string, Item[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group === undefined) groups.set(key(item), [item]);
    else group.push(item);
  }
  return groups;
};

/** `kills`: when workers were SIGKILLed (Date.now()), to tell their cuts from time-outs. */
export function checkDeliveries(
  snapshot: DeliveriesSnapshot,
  endpoints: EndpointRecord[],
  kills: number[] = [],
): DeliveriesReport {
  const problems: string[] = [];
  const events = new Map(snapshot.events.map((event) => [event.id, event]));
  const succeeded = snapshot.events.filter((event) => event.status === 'succeeded');
  const subscribers = (type: string) => endpoints.filter((e) => e.events.includes(type));
  checkMessages(snapshot, events, succeeded, subscribers, problems);
  checkDeliveryRows(snapshot, endpoints, subscribers, problems);
  const messagesById = new Map(snapshot.messages.map((message) => [message.id, message]));
  return {
    problems,
    events: snapshot.events.length,
    succeeded: succeeded.length,
    messages: snapshot.messages.length,
    deliveries: snapshot.deliveries.length,
    endpoints: endpoints.map((endpoint) =>
      checkReceived(endpoint, { snapshot, events, succeeded, messagesById, kills }, problems),
    ),
  };
}

/** One message for each applied change someone subscribes to, about that change; no other. */
function checkMessages(
  snapshot: DeliveriesSnapshot,
  events: Map<string, EventOutcome>,
  succeeded: EventOutcome[],
  subscribers: (type: string) => EndpointRecord[],
  problems: string[],
): void {
  for (const message of snapshot.messages) {
    const event = events.get(message.eventId ?? '');
    const what = `message ${message.id} (${message.type})`;
    if (event === undefined) {
      problems.push(`${what} names no event of the account: ${message.eventId}`);
    } else if (event.status !== 'succeeded') {
      problems.push(`${what} tells of event ${event.id} (${event.event}), which ${event.status}`);
    } else if (outgoingTypeOf(event) !== message.type) {
      problems.push(`${what} tells of event ${event.id}, an ${event.event}`);
    }
  }
  const messagesByEvent = byKey(snapshot.messages, (message) => message.eventId ?? '');
  for (const event of succeeded) {
    const expected = subscribers(outgoingTypeOf(event)).length > 0 ? 1 : 0;
    const found = messagesByEvent.get(event.id)?.length ?? 0;
    if (found !== expected) {
      problems.push(
        `event ${event.id} (${event.event}) succeeded with ${found} messages, not ${expected}`,
      );
    }
  }
}

/** A delivery to each endpoint subscribed to the message's type, every one succeeded. */
function checkDeliveryRows(
  snapshot: DeliveriesSnapshot,
  endpoints: EndpointRecord[],
  subscribers: (type: string) => EndpointRecord[],
  problems: string[],
): void {
  const nameOf = (endpointId: string) =>
    endpoints.find((endpoint) => endpoint.id === endpointId)?.name ?? endpointId;
  const deliveriesByMessage = byKey(snapshot.deliveries, (delivery) => delivery.messageId);
  for (const message of snapshot.messages) {
    const expected = subscribers(message.type).map((endpoint) => endpoint.name);
    const found = (deliveriesByMessage.get(message.id) ?? []).map((d) => nameOf(d.endpointId));
    if (found.sort().join() !== expected.sort().join()) {
      problems.push(
        `message ${message.id} (${message.type}) has deliveries to [${found.join(', ')}], not [${expected.join(', ')}]`,
      );
    }
  }
  for (const delivery of snapshot.deliveries) {
    if (delivery.status === 'succeeded') continue;
    problems.push(
      `delivery ${delivery.id} to ${nameOf(delivery.endpointId)} is ${delivery.status} after ${delivery.attempts} attempts (${delivery.error ?? 'no error'})`,
    );
  }
}

interface Recorded {
  snapshot: DeliveriesSnapshot;
  events: Map<string, EventOutcome>;
  succeeded: EventOutcome[];
  messagesById: Map<string, MessageRow>;
  kills: number[];
}

/**
 * Every request the endpoint's receiver got: signed with its secret, a message of the
 * account byte for byte, of a type it subscribes to, about a change that happened. Then
 * every change of such a type, and every message, must have been delivered to it.
 */
function checkReceived(
  endpoint: EndpointRecord,
  { snapshot, events, succeeded, messagesById, kills }: Recorded,
  problems: string[],
): EndpointCounts {
  const webhook = new Webhook(endpoint.secret);
  /** Event id -> the types it was told of the event in, by verified requests it took (2xx). */
  const told = new Map<string, Set<string>>();
  for (const request of endpoint.requests) {
    const what = `${endpoint.name} got ${request.webhookId}`;
    let parsed;
    try {
      parsed = OutgoingMessageSchema.parse(webhook.verify(request.body, request.headers));
    } catch (error) {
      problems.push(`${what}, which does not verify: ${(error as Error).message.slice(0, 120)}`);
      continue;
    }
    const message = messagesById.get(request.webhookId.replace(/^msg_/, ''));
    if (message === undefined) problems.push(`${what}, which is no message of the account`);
    else if (message.body !== request.body) problems.push(`${what}, with another body`);
    if (!endpoint.events.includes(parsed.type)) {
      problems.push(`${what}, a ${parsed.type}: it does not subscribe to it`);
    }
    const eventId = 'eventId' in parsed.data ? parsed.data.eventId : '';
    const event = events.get(eventId);
    if (event?.status !== 'succeeded') {
      problems.push(`${what}, about event ${eventId}, which ${event?.status ?? 'does not exist'}`);
    } else if (outgoingTypeOf(event) !== parsed.type) {
      problems.push(`${what}, a ${parsed.type} about event ${eventId}, an ${event.event}`);
    }
    if (accepted(request)) told.set(eventId, (told.get(eventId) ?? new Set()).add(parsed.type));
  }

  const deliveredIds = new Set(endpoint.requests.filter(accepted).map((r) => r.webhookId));
  for (const message of snapshot.messages) {
    if (endpoint.events.includes(message.type) && !deliveredIds.has(`msg_${message.id}`)) {
      problems.push(`${endpoint.name} never took message ${message.id} (${message.type})`);
    }
  }
  for (const event of succeeded) {
    const type = outgoingTypeOf(event);
    if (!endpoint.events.includes(type) || told.get(event.id)?.has(type) === true) continue;
    problems.push(`${endpoint.name} was never told of event ${event.id} (${type})`);
  }
  return countsOf(endpoint, snapshot, kills);
}

function countsOf(
  endpoint: EndpointRecord,
  snapshot: DeliveriesSnapshot,
  kills: number[],
): EndpointCounts {
  const { requests } = endpoint;
  /** When each webhook-id was first answered with a 2xx. */
  const succeededAt = new Map<string, number>();
  for (const request of requests) {
    if (!accepted(request)) continue;
    const at = request.closedAt ?? request.at;
    succeededAt.set(request.webhookId, Math.min(at, succeededAt.get(request.webhookId) ?? at));
  }
  const deliveries = snapshot.deliveries.filter((delivery) => delivery.endpointId === endpoint.id);
  const done = deliveries.filter((delivery) => delivery.status === 'succeeded');
  return {
    name: endpoint.name,
    messages: snapshot.messages.filter((message) => endpoint.events.includes(message.type)).length,
    requests: requests.length,
    duplicates: requests.length - new Set(requests.map((request) => request.webhookId)).size,
    afterSuccess: requests.filter((r) => r.at > (succeededAt.get(r.webhookId) ?? Infinity)).length,
    cutByDeath: requests.filter((request) => kills.some((kill) => cutBy(kill, request))).length,
    attempts: deliveries.reduce((sum, delivery) => sum + delivery.attempts, 0),
    failedAttempts: done.reduce((sum, delivery) => sum + delivery.attempts - 1, 0),
    maxAttempts: Math.max(0, ...deliveries.map((delivery) => delivery.attempts)),
  };
}
