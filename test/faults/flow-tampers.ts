// Tampers that the flow and breaker checks must catch (see deliveries-self-check.ts): a
// limited receiver sent more than its rate, a slug's messages taken out of order, a paused
// endpoint reached before its resume or sent again what it took after it, a pause within
// the window, one never made, one never told, a notice to an endpoint whose filter refuses
// it.
import { randomUUID } from 'node:crypto';
import { IN_FLIGHT_AT_PAUSE_MS } from './breaker-check.js';
import type { PauseRecord } from './endpoint-owner.js';
import { accepted, NOTICE_TYPE, type EndpointRecord } from './endpoint-records.js';
import { signedRequest, type Material, type Tamper } from './tamper-material.js';
import type { ReceivedRequest } from './webhook-receivers.js';

const limited = ({ endpoints }: Material) =>
  endpoints.find((endpoint) => endpoint.rate !== undefined && endpoint.requests.length > 30);

/** A pause with its endpoint, resumed once attempts in flight at the pause were over. */
function resumedPause({ endpoints, run }: Material) {
  for (const pause of run.pauses) {
    const endpoint = endpoints.find((candidate) => candidate.id === pause.endpointId);
    const resumed = pause.resumeSentAt ?? 0;
    if (endpoint !== undefined && resumed - pause.pausedAt > IN_FLIGHT_AT_PAUSE_MS + 200) {
      return { pause, endpoint, resumed };
    }
  }
  return undefined;
}

/**
 * On the endpoint meant to be paused: the first request of one article message and the
 * first 2xx of the next of its slug (one after the other in acceptance order).
 */
function consecutiveArticles({ snapshot, endpoints }: Material) {
  const endpoint = endpoints.find((candidate) => candidate.expectPause === true);
  if (endpoint === undefined) return undefined;
  const messageOf = new Map(snapshot.messages.map((message) => [message.eventId, message]));
  const first = (messageId: string, taken: boolean): ReceivedRequest | undefined =>
    endpoint.requests.find(
      (request) => request.webhookId === `msg_${messageId}` && (!taken || accepted(request)),
    );
  const lastOfSlug = new Map<string, string>();
  for (const event of snapshot.events) {
    const message = messageOf.get(event.id);
    if (event.status !== 'succeeded' || event.slug === null || message === undefined) continue;
    const previousId = lastOfSlug.get(event.slug);
    const previous = previousId === undefined ? undefined : messageOf.get(previousId);
    lastOfSlug.set(event.slug, event.id);
    if (previous === undefined || !previous.type.startsWith('article.')) continue;
    if (!message.type.startsWith('article.')) continue;
    const before = first(previous.id, false);
    const next = first(message.id, true);
    if (before !== undefined && next !== undefined) return { endpoint, message, before, next };
  }
  return undefined;
}

/** Moves the next message's taking before the earlier one's first request. */
function swapOrder(material: Material): boolean {
  const found = consecutiveArticles(material);
  if (found === undefined) return false;
  const { endpoint, message, before, next } = found;
  endpoint.requests = endpoint.requests.filter(
    (r) => r.webhookId !== `msg_${message.id}` || r === next,
  );
  next.at = before.at - 20;
  next.closedAt = before.at - 10;
  return true;
}

export const FLOW_TAMPERS: Tamper[] = [
  {
    name: 'the limited receiver got more requests in one second than its rate',
    expect: /requests in one second, over its rate/,
    apply: (material) => {
      const endpoint = limited(material);
      const burst = (endpoint?.rate?.perSecond ?? 0) + 2;
      if (endpoint === undefined || endpoint.requests.length < burst) return false;
      const base = endpoint.requests[0]!.at;
      endpoint.requests.slice(0, burst).forEach((request, index) => {
        request.at = base + index * Math.floor(900 / burst);
        request.closedAt = request.at;
      });
      return true;
    },
  },
  {
    name: 'the limited receiver had more requests open at once than it allows',
    expect: /requests open at once, over its/,
    apply: (material) => {
      const endpoint = limited(material);
      const crowd = (endpoint?.rate?.inFlight ?? 0) + 1;
      if (endpoint === undefined || endpoint.requests.length < crowd) return false;
      const base = endpoint.requests[0]!.at;
      for (const request of endpoint.requests.slice(0, crowd)) {
        request.at = base;
        request.closedAt = base + 100;
      }
      return true;
    },
  },
  {
    name: "a slug's next message reached the paused endpoint before the earlier one was answered",
    expect: /ms before its .* was answered/,
    apply: swapOrder,
  },
  {
    name: "a slug's article versions were taken out of order",
    expect: /article versions out of order/,
    apply: swapOrder,
  },
  {
    name: 'a paused endpoint got a request before its owner resumed it',
    expect: /requests while paused/,
    apply: (material) => {
      const found = resumedPause(material);
      const model = found?.endpoint.requests.find(accepted);
      if (found === undefined || model === undefined) return false;
      const at = found.resumed - 100;
      found.endpoint.requests.push({ ...model, at, closedAt: at + 1 });
      return true;
    },
  },
  {
    name: 'a resumed endpoint got a message again after its 2xx, no worker killed nor lock lost',
    expect: /again after a 2xx, after the resume/,
    apply: (material) => {
      const found = resumedPause(material);
      const taken = found?.endpoint.requests.find((r) => accepted(r) && r.at >= found.resumed);
      if (found === undefined || taken === undefined) return false;
      material.run.kills = material.run.kills.filter((kill) => kill < found.resumed);
      material.run.lockLost = [];
      const at = (taken.closedAt ?? taken.at) + 1;
      found.endpoint.requests.push({ ...taken, at, closedAt: at + 1 });
      return true;
    },
  },
  {
    name: 'the breaker paused an endpoint within its window',
    expect: /into its failures, within its/,
    apply: ({ run }) => {
      const pause: PauseRecord | undefined = run.pauses[0];
      if (pause === undefined) return false;
      pause.failingSince = pause.pausedAt - run.breakerAfterMs + 500;
      return true;
    },
  },
  {
    name: "the breaker restarted down's failure streak with no success",
    expect: /its streak restarted without a success/,
    apply: ({ endpoints, run }) => {
      const meant = new Set(endpoints.filter((e) => e.expectPause === true).map((e) => e.id));
      const pause = run.pauses.find((candidate) => meant.has(candidate.endpointId));
      if (pause === undefined) return false;
      pause.streaksSeen = [pause.failingSince - 5_000, pause.failingSince];
      return true;
    },
  },
  {
    name: 'the breaker never paused the endpoint down far past its window',
    expect: /the breaker never paused/,
    apply: ({ endpoints, run }) => {
      const meant = new Set(endpoints.filter((e) => e.expectPause === true).map((e) => e.id));
      const before = run.pauses.length;
      run.pauses = run.pauses.filter((pause) => !meant.has(pause.endpointId));
      return run.pauses.length < before;
    },
  },
  {
    name: 'a pause was never told: no notice, no delivery, no request',
    expect: /was told in 0 notices, not 1/,
    apply: ({ snapshot, endpoints }) => {
      const notices = new Set(
        snapshot.messages.filter((m) => m.type === NOTICE_TYPE).map((m) => m.id),
      );
      if (notices.size === 0) return false;
      snapshot.messages = snapshot.messages.filter((m) => !notices.has(m.id));
      snapshot.deliveries = snapshot.deliveries.filter((d) => !notices.has(d.messageId));
      for (const endpoint of endpoints) {
        endpoint.requests = endpoint.requests.filter(
          (r) => !notices.has(r.webhookId.replace(/^msg_/, '')),
        );
      }
      return true;
    },
  },
  {
    name: 'the filtered receiver got a notice its filter refuses',
    expect: /a notice not for it/,
    apply: ({ snapshot, endpoints }) => {
      const endpoint: EndpointRecord | undefined = endpoints.find(
        (e) => e.slugPrefixes !== undefined && e.events.includes(NOTICE_TYPE),
      );
      const notice = snapshot.messages.find((m) => m.type === NOTICE_TYPE);
      if (endpoint === undefined || notice === undefined) return false;
      endpoint.requests.push(signedRequest(endpoint, notice.id, notice.body));
      return true;
    },
  },
  {
    name: 'a notice tells of a pause no one saw',
    expect: /that no one saw/,
    apply: ({ snapshot }) => {
      const notice = snapshot.messages.find((m) => m.type === NOTICE_TYPE);
      if (notice === undefined) return false;
      const body = JSON.parse(notice.body) as { data: Record<string, unknown> };
      notice.body = JSON.stringify({ ...body, data: { ...body.data, endpointId: randomUUID() } });
      return true;
    },
  },
];
