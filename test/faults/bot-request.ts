// One publish request sent the way a well-behaved bot sends it: always with an
// Idempotency-Key, and on a network error, a 5xx or a 429 the SAME request is sent again
// with the SAME key after a short back-off, until it gets an answer or its time is up.
import { setTimeout as sleep } from 'node:timers/promises';

export interface Delivery {
  /** `accepted`: a 2xx; `refused`: an answer that retrying cannot change; `gave-up`: out of time. */
  outcome: 'accepted' | 'refused' | 'gave-up';
  id?: string;
  /** The answer said it replays an earlier request (`Idempotent-Replayed: true`). */
  replayed: boolean;
  status?: number;
  /** The problem's `code` when refused. */
  code?: string;
  /** The event id a refused-but-recorded (rejected) request names. */
  rejectedId?: string;
  detail?: string;
  tries: number;
}

export interface BotCounters {
  requests: number;
  retries: number;
  networkErrors: number;
  byStatus: Map<number, number>;
  /** Milliseconds each answered request took, whatever its status. */
  latencies: number[];
}

export const newCounters = (): BotCounters => ({
  requests: 0,
  retries: 0,
  networkErrors: 0,
  byStatus: new Map(),
  latencies: [],
});

/** The `fraction` quantile of `values` (0.5: the median), in whole units. */
export function quantile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0);
}

/** The answers that were not a 2xx, and network errors: `503x40 net:12`. */
export function retriedAnswers(counters: BotCounters): string {
  const parts = [...counters.byStatus]
    .filter(([status]) => status >= 300)
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status}x${count}`);
  if (counters.networkErrors > 0) parts.push(`net:${counters.networkErrors}`);
  return parts.join(' ') || '-';
}

export interface PublishRequest {
  /**
   * The API processes, as a load balancer in front of them would spread calls: the first
   * try goes to the first, each retry to the next, so a dead API costs a retry, not the event.
   */
  baseUrls: string[];
  apiKey: string;
  idempotencyKey: string;
  event: string;
  data: unknown;
}

const REQUEST_TIMEOUT_MS = 10_000;
// A real bot would honour Retry-After in full (the API says 5 s when its database is
// away); capping it keeps the suite short, and an early retry is something the API must
// cope with anyway.
const MAX_RETRY_AFTER_MS = 1_500;

export function backoffMs(retry: number, retryAfter: string | null): number {
  const jitter = Math.random() * 100;
  const seconds = Number(retryAfter);
  if (retryAfter !== null && Number.isFinite(seconds)) {
    return Math.min(seconds * 1_000, MAX_RETRY_AFTER_MS) + jitter;
  }
  return Math.min(50 * 2 ** retry, 1_000) + jitter;
}

/** Whether the bot should send the same request again after this answer. */
export function retryable(status: number, code: string | undefined): boolean {
  // 409 IDEMPOTENCY_KEY_IN_USE says "retry shortly": a concurrent copy is still recording.
  return status >= 500 || status === 429 || (status === 409 && code === 'IDEMPOTENCY_KEY_IN_USE');
}

export async function deliver(
  request: PublishRequest,
  counters: BotCounters,
  budgetMs: number,
): Promise<Delivery> {
  const deadline = Date.now() + budgetMs;
  const body = JSON.stringify({ event: request.event, data: request.data });
  let lastDetail = '';
  let lastStatus: number | undefined;
  for (let tries = 1; ; tries += 1) {
    counters.requests += 1;
    if (tries > 1) counters.retries += 1;
    let retryAfter: string | null = null;
    const sentAt = performance.now();
    try {
      const baseUrl = request.baseUrls[(tries - 1) % request.baseUrls.length];
      const response = await fetch(`${baseUrl}/api/webhooks/content`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': request.apiKey,
          'idempotency-key': request.idempotencyKey,
        },
        body,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await response.text();
      counters.latencies.push(performance.now() - sentAt);
      lastStatus = response.status;
      counters.byStatus.set(response.status, (counters.byStatus.get(response.status) ?? 0) + 1);
      const json = safeJson(text);
      if (response.ok) {
        return {
          outcome: 'accepted',
          id: String(json?.id),
          replayed: response.headers.get('idempotent-replayed') === 'true',
          status: response.status,
          tries,
        };
      }
      const code = typeof json?.code === 'string' ? json.code : undefined;
      lastDetail = `${response.status} ${code ?? text.slice(0, 200)}`;
      if (!retryable(response.status, code)) {
        return {
          outcome: 'refused',
          replayed: false,
          status: response.status,
          code,
          rejectedId: typeof json?.eventId === 'string' ? json.eventId : undefined,
          detail: lastDetail,
          tries,
        };
      }
      retryAfter = response.headers.get('retry-after');
    } catch (error) {
      // Refused connections (API restarting), resets, a body cut short, our own timeout.
      counters.networkErrors += 1;
      lastDetail = `network: ${(error as Error).message}`;
    }
    if (Date.now() >= deadline) {
      return { outcome: 'gave-up', replayed: false, status: lastStatus, detail: lastDetail, tries };
    }
    await sleep(Math.min(backoffMs(tries - 1, retryAfter), Math.max(0, deadline - Date.now())));
  }
}

export function safeJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object'
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
