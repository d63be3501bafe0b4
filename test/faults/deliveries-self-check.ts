// The delivery checks must be able to fail. After a clean result, what they read is
// tampered with in memory, one fault at a time (a message that never arrived, a message
// about a change that failed, a forged signature, ...), and each must be reported.
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { checkDeliveries, type EndpointRecord } from './deliveries-check.js';
import type { DeliveriesSnapshot, MessageRow } from './deliveries-queries.js';
import type { ReceivedRequest } from './webhook-receivers.js';

interface Material {
  snapshot: DeliveriesSnapshot;
  endpoints: EndpointRecord[];
}
/** Tampers with the material; false when it holds nothing to tamper with. */
type Tamper = (material: Material) => boolean;

/** A request as the worker would send it, signed with the endpoint's secret. */
function signedRequest(endpoint: EndpointRecord, messageId: string, body: string): ReceivedRequest {
  const webhookId = `msg_${messageId}`;
  const now = new Date();
  const signature = new Webhook(endpoint.secret).sign(webhookId, now, body);
  return {
    webhookId,
    body,
    at: now.getTime(),
    answer: 200,
    closedAt: now.getTime(),
    headers: {
      'webhook-id': webhookId,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signature,
    },
  };
}

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

const TAMPERS: Array<{ name: string; tamper: Tamper }> = [
  {
    name: 'a receiver never got one message',
    tamper: ({ endpoints }) => {
      const endpoint = endpoints.find((candidate) => candidate.requests.length > 0);
      const lost = endpoint?.requests[0]?.webhookId;
      if (endpoint === undefined || lost === undefined) return false;
      endpoint.requests = endpoint.requests.filter((request) => request.webhookId !== lost);
      return true;
    },
  },
  {
    name: 'a receiver answered every request of one message with a 500',
    tamper: ({ endpoints }) => {
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
    tamper: ({ snapshot, endpoints }) => {
      const message = snapshot.messages.shift();
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
    tamper: (material) => {
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
    tamper: (material) => {
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
    tamper: ({ endpoints }) => {
      const request = endpoints.find((endpoint) => endpoint.requests.length > 0)?.requests[0];
      if (request === undefined) return false;
      request.body = `${request.body} `;
      return true;
    },
  },
  {
    name: 'a receiver got a type it does not subscribe to',
    tamper: ({ snapshot, endpoints }) => {
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
    tamper: ({ snapshot }) => {
      const delivery = snapshot.deliveries[0];
      if (delivery === undefined) return false;
      delivery.status = 'failed';
      return true;
    },
  },
];

/** Runs every tamper on a copy; returns those the checks did not report, and those skipped. */
export function selfCheckDeliveries(
  snapshot: DeliveriesSnapshot,
  endpoints: EndpointRecord[],
): { missed: string[]; skipped: string[] } {
  const missed: string[] = [];
  const skipped: string[] = [];
  for (const { name, tamper } of TAMPERS) {
    const copy = structuredClone({ snapshot, endpoints });
    if (!tamper(copy)) skipped.push(name);
    else if (checkDeliveries(copy.snapshot, copy.endpoints).problems.length === 0) {
      missed.push(name);
    }
  }
  return { missed, skipped };
}
