// The verdict on outgoing webhooks: what each receiver got, against the events that
// succeeded and the messages and deliveries PostgreSQL holds. At least once: every change
// applied is delivered (a request the receiver answered with a 2xx) to every endpoint
// subscribed to its type whose filter passes it, signed with that endpoint's secret;
// nothing reaches anyone about a change that did not happen, or that its filter refuses;
// duplicates (the same webhook-id again) are allowed, and counted. How deliveries flowed
// (rate, order) and the breaker are judged in deliveries-flow-check.ts and breaker-check.ts.
import { OutgoingMessageSchema } from '@ingest/events';
import { Webhook } from 'standardwebhooks';
import { checkBreaker, noticeRecipients, type BreakerReport } from './breaker-check.js';
import { checkFlow, type FlowCounts } from './deliveries-flow-check.js';
import type { DeliveriesSnapshot, EventOutcome, MessageRow } from './deliveries-queries.js';
import {
  accepted,
  NOTICE_TYPE,
  outgoingTypeOf,
  passesFilter,
  toldOf,
  type EndpointRecord,
  type Recipients,
  type RunRecord,
} from './endpoint-records.js';
import type { ReceivedRequest } from './webhook-receivers.js';

// A dead process's connections close as it dies: a cut this soon after a SIGKILL is its.
const DEATH_CUTS_WITHIN_MS = 500;
/** Whether the request was held open when a worker was killed at `kill`, and cut as it died. */
const cutBy = (kill: number, { answer, at, closedAt = 0 }: ReceivedRequest) =>
  answer === 'cut' && at < kill && closedAt >= kill && closedAt - kill < DEATH_CUTS_WITHIN_MS;

export interface EndpointCounts extends FlowCounts {
  name: string;
  /** Messages it is to get (of its types, passed by its filter): each must reach it. */
  messages: number;
  /** Changes of its types its filter refused: none may reach it. */
  filteredOut: number;
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
  /** Of the messages, the breaker's notices. */
  notices: number;
  deliveries: number;
  endpoints: EndpointCounts[];
  breaker: BreakerReport;
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

export function checkDeliveries(
  snapshot: DeliveriesSnapshot,
  endpoints: EndpointRecord[],
  run: RunRecord,
): DeliveriesReport {
  const problems: string[] = [];
  const events = new Map(snapshot.events.map((event) => [event.id, event]));
  const succeeded = snapshot.events.filter((event) => event.status === 'succeeded');
  checkMessages(snapshot, events, succeeded, endpoints, problems);
  const recipients = new Map<string, Recipients>();
  for (const message of snapshot.messages) {
    const event = events.get(message.eventId ?? '');
    recipients.set(
      message.id,
      message.type === NOTICE_TYPE
        ? noticeRecipients(message, endpoints, run, problems)
        : {
            must: new Set(
              endpoints.filter((e) => event !== undefined && toldOf(e, event)).map((e) => e.id),
            ),
            may: new Set(),
          },
    );
  }
  checkDeliveryRows(snapshot, endpoints, recipients, problems);
  const messagesById = new Map(snapshot.messages.map((message) => [message.id, message]));
  const recorded = { snapshot, events, succeeded, messagesById, recipients, run };
  return {
    problems,
    events: snapshot.events.length,
    succeeded: succeeded.length,
    messages: snapshot.messages.length,
    notices: snapshot.messages.filter((message) => message.type === NOTICE_TYPE).length,
    deliveries: snapshot.deliveries.length,
    endpoints: endpoints.map((endpoint) => ({
      ...checkReceived(endpoint, recorded, problems),
      ...checkFlow(snapshot, endpoint, problems),
    })),
    breaker: checkBreaker(snapshot, endpoints, run, problems),
  };
}

/**
 * One message for each applied change some endpoint is to be told of (its type, its
 * filter), about that change; no other, but the breaker's notices (breaker-check.ts).
 */
function checkMessages(
  snapshot: DeliveriesSnapshot,
  events: Map<string, EventOutcome>,
  succeeded: EventOutcome[],
  endpoints: EndpointRecord[],
  problems: string[],
): void {
  for (const message of snapshot.messages) {
    if (message.type === NOTICE_TYPE && message.eventId === null) continue;
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
    const expected = endpoints.some((endpoint) => toldOf(endpoint, event)) ? 1 : 0;
    const found = messagesByEvent.get(event.id)?.length ?? 0;
    if (found !== expected) {
      problems.push(
        `event ${event.id} (${event.event}) succeeded with ${found} messages, not ${expected}`,
      );
    }
  }
}

/** A delivery to each endpoint the message is for and no other, every one succeeded. */
function checkDeliveryRows(
  snapshot: DeliveriesSnapshot,
  endpoints: EndpointRecord[],
  recipients: Map<string, Recipients>,
  problems: string[],
): void {
  const nameOf = (endpointId: string) =>
    endpoints.find((endpoint) => endpoint.id === endpointId)?.name ?? endpointId;
  const names = (ids: Iterable<string>) => [...ids].map(nameOf).sort().join(', ');
  const deliveriesByMessage = byKey(snapshot.deliveries, (delivery) => delivery.messageId);
  for (const message of snapshot.messages) {
    const { must, may } = recipients.get(message.id) ?? { must: new Set(), may: new Set() };
    const found = (deliveriesByMessage.get(message.id) ?? []).map((d) => d.endpointId);
    const wrong =
      [...must].some((id) => !found.includes(id)) ||
      found.some((id) => !must.has(id) && !may.has(id)) ||
      new Set(found).size !== found.length;
    if (wrong) {
      const maybe = may.size === 0 ? '' : `, and maybe [${names(may)}]`;
      problems.push(
        `message ${message.id} (${message.type}) has deliveries to [${names(found)}], not [${names(must)}]${maybe}`,
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
  recipients: Map<string, Recipients>;
  run: RunRecord;
}

/**
 * Every request the endpoint's receiver got: signed with its secret, a message of the
 * account byte for byte, of a type it subscribes to, about a change that happened and that
 * its filter passes (or a notice meant for it). Then every message meant for it, and every
 * change it is to be told of, must have been delivered to it.
 */
function checkReceived(
  endpoint: EndpointRecord,
  { snapshot, events, succeeded, messagesById, recipients, run }: Recorded,
  problems: string[],
): Omit<EndpointCounts, keyof FlowCounts> {
  const webhook = new Webhook(endpoint.secret);
  const isFor = (messageId: string) => {
    const { must, may } = recipients.get(messageId) ?? { must: new Set(), may: new Set() };
    return must.has(endpoint.id) || may.has(endpoint.id);
  };
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
    if (parsed.type === NOTICE_TYPE) {
      if (message !== undefined && !isFor(message.id))
        problems.push(`${what}, a notice not for it`);
      continue;
    }
    const eventId = 'eventId' in parsed.data ? parsed.data.eventId : '';
    const event = events.get(eventId);
    if (event?.status !== 'succeeded') {
      problems.push(`${what}, about event ${eventId}, which ${event?.status ?? 'does not exist'}`);
    } else if (outgoingTypeOf(event) !== parsed.type) {
      problems.push(`${what}, a ${parsed.type} about event ${eventId}, an ${event.event}`);
    } else if (!passesFilter(endpoint, event.slug)) {
      problems.push(`${what}, a ${parsed.type} about ${event.slug}, which its filter refuses`);
    }
    if (accepted(request)) told.set(eventId, (told.get(eventId) ?? new Set()).add(parsed.type));
  }

  const deliveredIds = new Set(endpoint.requests.filter(accepted).map((r) => r.webhookId));
  const recordedFor = new Set(
    snapshot.deliveries.filter((d) => d.endpointId === endpoint.id).map((d) => d.messageId),
  );
  // A notice it may get (see noticeRecipients) is due once a delivery of it was recorded.
  const due = snapshot.messages.filter(
    (message) =>
      recipients.get(message.id)?.must.has(endpoint.id) === true ||
      (isFor(message.id) && recordedFor.has(message.id)),
  );
  for (const message of due) {
    if (!deliveredIds.has(`msg_${message.id}`)) {
      problems.push(`${endpoint.name} never took message ${message.id} (${message.type})`);
    }
  }
  for (const event of succeeded) {
    const type = outgoingTypeOf(event);
    if (!toldOf(endpoint, event) || told.get(event.id)?.has(type) === true) continue;
    problems.push(`${endpoint.name} was never told of event ${event.id} (${type})`);
  }
  const filteredOut = succeeded.filter(
    (event) => endpoint.events.includes(outgoingTypeOf(event)) && !toldOf(endpoint, event),
  ).length;
  return { ...countsOf(endpoint, snapshot, run.kills), messages: due.length, filteredOut };
}

function countsOf(endpoint: EndpointRecord, snapshot: DeliveriesSnapshot, kills: number[]) {
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
    requests: requests.length,
    duplicates: requests.length - new Set(requests.map((request) => request.webhookId)).size,
    afterSuccess: requests.filter((r) => r.at > (succeededAt.get(r.webhookId) ?? Infinity)).length,
    cutByDeath: requests.filter((request) => kills.some((kill) => cutBy(kill, request))).length,
    attempts: deliveries.reduce((sum, delivery) => sum + delivery.attempts, 0),
    failedAttempts: done.reduce((sum, delivery) => sum + delivery.attempts - 1, 0),
    maxAttempts: Math.max(0, ...deliveries.map((delivery) => delivery.attempts)),
  };
}
