// What the delivery checks judge, and the rules they judge it by: each endpoint as
// registered, with every request its receiver got; the run's record (kills, the breaker's
// pauses); and who is to be told of what. These rules are the checks' own reading of the
// plan (webhook-plans.ts), never the service's: its filter is not asked what it passed.
import type { EventOutcome } from './deliveries-queries.js';
import type { PauseRecord } from './endpoint-owner.js';
import type { ReceivedRequest } from './webhook-receivers.js';

/** The breaker's notice to the account's other endpoints: it tells of no event. */
export const NOTICE_TYPE = 'endpoint.paused';

/** An endpoint as registered, with every request its receiver got. */
export interface EndpointRecord {
  /** The receiver's name, which says how it misbehaved. */
  name: string;
  id: string;
  secret: string;
  /** The types it subscribes to. */
  events: string[];
  /** Its filter: only messages about a slug with one of these prefixes; every one when absent. */
  slugPrefixes?: string[];
  /** Its rate: attempts a second and at once. */
  rate?: { perSecond: number; inFlight: number };
  /** The breaker must pause it during the run. */
  expectPause?: boolean;
  requests: ReceivedRequest[];
}

/** What happened to the endpoints during the run, besides what their receivers got. */
export interface RunRecord {
  /** When workers were SIGKILLed (Date.now()), to tell their cuts from time-outs. */
  kills: number[];
  /** Every pause the owner saw, and its resume (endpoint-owner.ts). */
  pauses: PauseRecord[];
  /** WEBHOOK_BREAKER_AFTER. */
  breakerAfterMs: number;
  /** Deliveries whose job lost its lock (its worker stalled): run twice at once, at least once. */
  lockLost: string[];
}

/** Which endpoints are to get a message: each of `must`; any of `may` (see noticeRecipients). */
export interface Recipients {
  must: Set<string>;
  may: Set<string>;
}

/** The outgoing type of the change each incoming event applies when it succeeds. */
const OUTGOING_TYPE: Record<string, string> = {
  'article.create': 'article.created',
  'article.update': 'article.updated',
  'article.delete': 'article.deleted',
  'highlight.create': 'highlight.created',
};
export const outgoingTypeOf = (event: EventOutcome) => OUTGOING_TYPE[event.event ?? ''] ?? '?';

export const accepted = (request: ReceivedRequest) =>
  typeof request.answer === 'number' && request.answer >= 200 && request.answer < 300;

/** Whether the endpoint's filter passes a message about `slug` (null: a message about none). */
export const passesFilter = ({ slugPrefixes }: EndpointRecord, slug: string | null) =>
  slugPrefixes === undefined ||
  (slug !== null && slugPrefixes.some((prefix) => slug.startsWith(prefix)));

/** Whether the endpoint is to be told of the event's change: by its type, and its filter. */
export const toldOf = (endpoint: EndpointRecord, event: EventOutcome) =>
  endpoint.events.includes(outgoingTypeOf(event)) && passesFilter(endpoint, event.slug);
