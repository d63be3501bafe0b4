// What the delivery self-check tampers with (a copy of what the checks read), and the one
// way its tampers forge a request: signed with the endpoint's secret, as a worker sends it.
import { Webhook } from 'standardwebhooks';
import type { DeliveriesSnapshot } from './deliveries-queries.js';
import type { EndpointRecord, RunRecord } from './endpoint-records.js';
import type { ReceivedRequest } from './webhook-receivers.js';

export interface Material {
  snapshot: DeliveriesSnapshot;
  endpoints: EndpointRecord[];
  run: RunRecord;
}

export interface Tamper {
  name: string;
  /** What the checks must report of it: a problem matching this. */
  expect: RegExp;
  /** Tampers with the material; false when it holds nothing to tamper with. */
  apply: (material: Material) => boolean;
}

/** A request as the worker would send it, signed with the endpoint's secret, answered 200. */
export function signedRequest(
  endpoint: EndpointRecord,
  messageId: string,
  body: string,
  at = Date.now(),
): ReceivedRequest {
  const webhookId = `msg_${messageId}`;
  const signature = new Webhook(endpoint.secret).sign(webhookId, new Date(at), body);
  return {
    webhookId,
    body,
    at,
    answer: 200,
    closedAt: at,
    headers: {
      'webhook-id': webhookId,
      'webhook-timestamp': String(Math.floor(at / 1000)),
      'webhook-signature': signature,
    },
  };
}
