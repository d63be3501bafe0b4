// The delivery checks must be able to fail. After a clean result, what they read is
// tampered with in memory, one fault at a time (a message that never arrived, a message
// about a change that failed, a forged signature, a change the filter refuses, ...), and
// each must be reported, by the check meant to catch it. The tampers of the rate, the
// order and the breaker are in flow-tampers.ts.
import { randomUUID } from 'node:crypto';
import { checkDeliveries } from './deliveries-check.js';
import type { DeliveriesSnapshot, EventOutcome, MessageRow } from './deliveries-queries.js';
import {
  outgoingTypeOf,
  passesFilter,
  type EndpointRecord,
  type RunRecord,
} from './endpoint-records.js';
import { FLOW_TAMPERS } from './flow-tampers.js';
import { signedRequest, type Material, type Tamper } from './tamper-material.js';

/** A message's body, retold about another event. */
const retold = (message: MessageRow, eventId: string): string => {
  const body = JSON.parse(message.body) as { data: Record<string, unknown> };
  return JSON.stringify({ ...body, data: { ...body.data, eventId } });
};

/** A failed event and a message of the type it would have been told as. */
function failedChange({ snapshot }: Material) {
  const types: Record<string, string> = {
    'article.create': 'article.created',
    'article.update': 'article.updated',
    'article.delete': 'article.deleted',
  };
  for (const event of snapshot.events.filter((candidate) => candidate.status === 'failed')) {
    const message = snapshot.messages.find((m) => m.type === types[event.event ?? '']);
    if (message !== undefined) return { event, message };
  }
  return undefined;
}

/** The filtered endpoint, and a message of its types about a change its filter `passes` (or not). */
function filtered({ snapshot, endpoints }: Material, passes: boolean) {
  const endpoint = endpoints.find((candidate) => candidate.slugPrefixes !== undefined);
  const events = new Map<string, EventOutcome>(snapshot.events.map((event) => [event.id, event]));
  const message = snapshot.messages.find((candidate) => {
    const event = events.get(candidate.eventId ?? '');
    return (
      endpoint !== undefined &&
      event !== undefined &&
      endpoint.events.includes(outgoingTypeOf(event)) &&
      passesFilter(endpoint, event.slug) === passes
    );
  });
  return endpoint === undefined || message === undefined ? undefined : { endpoint, message };
}

const NEVER_TAKEN = /never took message|was never told of event/;

const TAMPERS: Tamper[] = [
  {
    name: 'a receiver never got one message',
    expect: NEVER_TAKEN,
    apply: ({ endpoints }) => {
      const endpoint = endpoints.find((candidate) => candidate.requests.length > 0);
      const lost = endpoint?.requests[0]?.webhookId;
      if (endpoint === undefined || lost === undefined) return false;
      endpoint.requests = endpoint.requests.filter((request) => request.webhookId !== lost);
      return true;
    },
  },
  {
    name: 'a receiver answered every request of one message with a 500',
    expect: NEVER_TAKEN,
    apply: ({ endpoints }) => {
      const endpoint = endpoints.find((candidate) => candidate.requests.length > 0);
      const refused = endpoint?.requests[0]?.webhookId;
      if (endpoint === undefined || refused === undefined) return false;
      for (const request of endpoint.requests.filter((r) => r.webhookId === refused)) {
        request.answer = 500;
      }
      return true;
    },
  },
  {
    name: 'an applied change was never told: no message, no delivery, no request',
    expect: /succeeded with 0 messages, not 1/,
    apply: ({ snapshot, endpoints }) => {
      const index = snapshot.messages.findIndex((candidate) => candidate.eventId !== null);
      const [message] = index < 0 ? [] : snapshot.messages.splice(index, 1);
      if (message === undefined) return false;
      snapshot.deliveries = snapshot.deliveries.filter((d) => d.messageId !== message.id);
      for (const endpoint of endpoints) {
        endpoint.requests = endpoint.requests.filter((r) => r.webhookId !== `msg_${message.id}`);
      }
      return true;
    },
  },
  {
    name: 'a message was written and delivered for a change that failed',
    expect: /tells of event .*, which failed/,
    apply: (material) => {
      const found = failedChange(material);
      if (found === undefined) return false;
      const message = { ...found.message, id: randomUUID(), eventId: found.event.id };
      message.body = retold(found.message, found.event.id);
      material.snapshot.messages.push(message);
      for (const endpoint of material.endpoints.filter((e) => e.events.includes(message.type))) {
        material.snapshot.deliveries.push({
          id: randomUUID(),
          messageId: message.id,
          endpointId: endpoint.id,
          status: 'succeeded',
          attempts: 1,
          error: null,
        });
        endpoint.requests.push(signedRequest(endpoint, message.id, message.body));
      }
      return true;
    },
  },
  {
    name: 'a receiver got a signed message about a change that failed, unrecorded',
    expect: /which is no message of the account/,
    apply: (material) => {
      const found = failedChange(material);
      const endpoint = material.endpoints.find((e) => e.events.includes(found?.message.type ?? ''));
      if (found === undefined || endpoint === undefined) return false;
      const body = retold(found.message, found.event.id);
      endpoint.requests.push(signedRequest(endpoint, randomUUID(), body));
      return true;
    },
  },
  {
    name: 'a request whose body is not the one signed',
    expect: /which does not verify/,
    apply: ({ endpoints }) => {
      const request = endpoints.find((endpoint) => endpoint.requests.length > 0)?.requests[0];
      if (request === undefined) return false;
      request.body = `${request.body} `;
      return true;
    },
  },
  {
    name: 'a receiver got a type it does not subscribe to',
    expect: /it does not subscribe to it/,
    apply: ({ snapshot, endpoints }) => {
      for (const endpoint of endpoints) {
        const message = snapshot.messages.find((m) => !endpoint.events.includes(m.type));
        if (message === undefined) continue;
        endpoint.requests.push(signedRequest(endpoint, message.id, message.body));
        return true;
      }
      return false;
    },
  },
  {
    name: 'a delivery ended failed',
    expect: /is failed after/,
    apply: ({ snapshot }) => {
      const delivery = snapshot.deliveries[0];
      if (delivery === undefined) return false;
      delivery.status = 'failed';
      return true;
    },
  },
  {
    name: 'a delivery was left held',
    expect: /is held after/,
    apply: ({ snapshot }) => {
      const delivery = snapshot.deliveries.at(-1);
      if (delivery === undefined) return false;
      delivery.status = 'held';
      return true;
    },
  },
  {
    name: 'the filtered receiver got a change its filter refuses',
    expect: /which its filter refuses/,
    apply: (material) => {
      const found = filtered(material, false);
      if (found === undefined) return false;
      const { endpoint, message } = found;
      endpoint.requests.push(signedRequest(endpoint, message.id, message.body));
      return true;
    },
  },
  {
    name: 'a change the filter refuses was recorded for the filtered endpoint',
    expect: /has deliveries to/,
    apply: (material) => {
      const found = filtered(material, false);
      if (found === undefined) return false;
      material.snapshot.deliveries.push({
        id: randomUUID(),
        messageId: found.message.id,
        endpointId: found.endpoint.id,
        status: 'succeeded',
        attempts: 1,
        error: null,
      });
      return true;
    },
  },
  {
    name: 'a change the filter passes was neither recorded for nor sent to the filtered endpoint',
    expect: /has deliveries to/,
    apply: (material) => {
      const found = filtered(material, true);
      if (found === undefined) return false;
      const { endpoint, message } = found;
      material.snapshot.deliveries = material.snapshot.deliveries.filter(
        (d) => d.messageId !== message.id || d.endpointId !== endpoint.id,
      );
      endpoint.requests = endpoint.requests.filter((r) => r.webhookId !== `msg_${message.id}`);
      return true;
    },
  },
];

/** Runs every tamper on a copy; returns those the checks did not report, and those skipped. */
export function selfCheckDeliveries(
  snapshot: DeliveriesSnapshot,
  endpoints: EndpointRecord[],
  run: RunRecord,
): { missed: string[]; skipped: string[] } {
  const missed: string[] = [];
  const skipped: string[] = [];
  for (const { name, expect, apply } of [...TAMPERS, ...FLOW_TAMPERS]) {
    const copy = structuredClone({ snapshot, endpoints, run });
    if (!apply(copy)) skipped.push(name);
    else if (
      !checkDeliveries(copy.snapshot, copy.endpoints, copy.run).problems.some((p) => expect.test(p))
    ) {
      missed.push(name);
    }
  }
  return { missed, skipped };
}
