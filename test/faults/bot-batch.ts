// A batch of events sent the way a well-behaved bot sends one: every event with its
// idempotencyKey; when the call gets no answer (a network error, a 5xx, a 429, a 409
// IDEMPOTENCY_KEY_IN_USE) the SAME events are sent again with the SAME keys, and when
// the answer refuses some events for a reason retrying can change (RATE_LIMITED, a 5xx),
// only those are sent again. Each event ends with a Delivery of its own, as if sent alone.
import { setTimeout as sleep } from 'node:timers/promises';
import { backoffMs, retryable, safeJson, type BotCounters, type Delivery } from './bot-request.js';

export interface BatchItem {
  idempotencyKey: string;
  event: string;
  data: unknown;
}

export interface BatchRequest {
  /** As for a single request: the first try to the first, each retry to the next. */
  baseUrls: string[];
  apiKey: string;
  items: BatchItem[];
}

const REQUEST_TIMEOUT_MS = 10_000;

interface ItemAnswer {
  id?: string;
  replayed?: boolean;
  error?: { status: number; code: string; message: string };
}

export async function deliverBatch(
  request: BatchRequest,
  counters: BotCounters,
  budgetMs: number,
): Promise<Delivery[]> {
  const deadline = Date.now() + budgetMs;
  const deliveries: Array<Delivery | undefined> = request.items.map(() => undefined);
  const tries = request.items.map(() => 0);
  let pending = request.items.map((_, i) => i);
  let lastDetail = '';
  let lastStatus: number | undefined;
  for (let call = 1; ; call += 1) {
    counters.requests += 1;
    if (call > 1) counters.retries += 1;
    pending.forEach((i) => (tries[i] = (tries[i] ?? 0) + 1));
    let retryAfter: string | null = null;
    const sentAt = performance.now();
    try {
      const baseUrl = request.baseUrls[(call - 1) % request.baseUrls.length];
      const events = pending.map((i) => request.items[i]);
      const response = await fetch(`${baseUrl}/api/webhooks/content/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': request.apiKey },
        body: JSON.stringify({ events }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await response.text();
      counters.latencies.push(performance.now() - sentAt);
      lastStatus = response.status;
      counters.byStatus.set(response.status, (counters.byStatus.get(response.status) ?? 0) + 1);
      const json = safeJson(text);
      if (response.ok && Array.isArray(json?.results)) {
        const results = json.results as ItemAnswer[];
        const again: number[] = [];
        pending.forEach((i, position) => {
          const answer = results[position] ?? {};
          const settled = settle(answer, tries[i] ?? 1);
          if (settled === undefined) again.push(i);
          else deliveries[i] = settled;
        });
        pending = again;
        if (pending.length === 0) break;
        lastDetail = `events refused for now: ${again.length}`;
        retryAfter = response.headers.get('retry-after');
      } else {
        const code = typeof json?.code === 'string' ? json.code : undefined;
        lastDetail = `${response.status} ${code ?? text.slice(0, 200)}`;
        if (!retryable(response.status, code)) {
          // The call as a whole was refused: every event it carried with it.
          for (const i of pending) {
            deliveries[i] = {
              outcome: 'refused',
              replayed: false,
              status: response.status,
              code,
              detail: lastDetail,
              tries: tries[i] ?? 1,
            };
          }
          break;
        }
        retryAfter = response.headers.get('retry-after');
      }
    } catch (error) {
      counters.networkErrors += 1;
      lastDetail = `network: ${(error as Error).message}`;
    }
    if (Date.now() >= deadline) {
      for (const i of pending) {
        deliveries[i] = {
          outcome: 'gave-up',
          replayed: false,
          status: lastStatus,
          detail: lastDetail,
          tries: tries[i] ?? 1,
        };
      }
      break;
    }
    await sleep(Math.min(backoffMs(call - 1, retryAfter), Math.max(0, deadline - Date.now())));
  }
  return deliveries.map((delivery) => {
    if (delivery === undefined) throw new Error('an event of the batch was never settled');
    return delivery;
  });
}

/** One event's answer as a Delivery; undefined when it should be sent again. */
function settle(answer: ItemAnswer, tries: number): Delivery | undefined {
  if (answer.error === undefined) {
    return {
      outcome: 'accepted',
      id: String(answer.id),
      replayed: answer.replayed === true,
      status: 202,
      tries,
    };
  }
  const { status, code, message } = answer.error;
  if (retryable(status, code)) return undefined;
  return {
    outcome: 'refused',
    replayed: false,
    status,
    code,
    rejectedId: answer.id,
    detail: `${status} ${code}: ${message}`,
    tries,
  };
}
