// The operator API's shapes, as the page uses them (packages/contracts/src/admin.ts is
// the source of truth; the page is a separate build and does not bundle zod).

export const EVENT_STATUSES = ['queued', 'processing', 'succeeded', 'failed', 'rejected'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];
export const EVENT_NAMES = [
  'article.create',
  'article.update',
  'article.delete',
  'highlight.create',
] as const;

export interface Account {
  id: string;
  email: string;
  handle: string;
  name: string;
}

export interface Throughput {
  minute: string;
  accepted: number;
  applied: number;
}

export interface QueueState {
  paused: boolean;
  counts: Partial<Record<string, number>>;
  workers: number;
  oldestWaitingAgeSeconds: number | null;
  throughput: Throughput[];
}

export interface EventError {
  code: string;
  message: string;
}

export interface OperatorEvent {
  id: string;
  event: string | null;
  status: EventStatus;
  attempts: number;
  receivedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  result: { type: string; id: string; slug?: string; deleted?: boolean } | null;
  error: EventError | null;
  accountId: string;
  apiKeyId: string | null;
  requestId: string;
  replays: number;
  lastReplayedAt: string | null;
}

export interface EventAttempt {
  number: number;
  startedAt: string;
  finishedAt: string | null;
  outcome: string | null;
  error: EventError | null;
}

export interface EventDetail extends OperatorEvent {
  payload: unknown;
  orderKeys: string[];
  account: { id: string; handle: string; email: string };
  attemptsLog: EventAttempt[];
}

export interface Page<Item> {
  items: Item[];
  nextCursor: string | null;
}

/** The search filters, as typed in the form: every one optional, all strings. */
export interface EventFilters {
  status?: string;
  event?: string;
  accountId?: string;
  apiKeyId?: string;
  slug?: string;
  from?: string;
  to?: string;
  /** A JSON object, as text. */
  payload?: string;
}
