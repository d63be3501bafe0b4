// The operator API, called with the session cookie (HttpOnly: this script never sees it).
// Types only from @ingest/contracts: its values would bring zod into the page.
import type {
  Account,
  AccountBacklogList,
  AccountPage,
  AccountShare,
  AdminDelivery,
  AdminEndpointList,
  DeliveryResendRequest,
  DeliveryResendResult,
  BulkRetryPreview,
  BulkRetryResult,
  EventDetail,
  EventLogStorage,
  EventSearchFilters,
  EventSearchResult,
  FieldProblem,
  History,
  HistoryWindow,
  PauseState,
  Problem,
  QueueState,
} from '@ingest/contracts';

/** The search filters as the form holds them: text, under the API's filter names. */
export type EventFilters = Partial<Record<keyof EventSearchFilters, string>>;

/** A refused or failed call: the problem document's `message`, `code` and field errors. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fieldErrors: FieldProblem[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Called when a session ends mid-use (401) or the account stops being an operator (403). */
let onSessionLost: ((error: ApiError) => void) | undefined;
export const whenSessionLost = (handler: (error: ApiError) => void): void => {
  onSessionLost = handler;
};

async function request<Body>(method: string, path: string, body?: unknown): Promise<Body> {
  // A JSON content type only with a body: Fastify refuses an empty JSON body (400).
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'NETWORK', 'The API did not answer; is it running?');
  }
  const text = await response.text();
  let data: unknown = null;
  try {
    data = text === '' ? null : JSON.parse(text);
  } catch {
    // A proxy's HTML error page, say: described below by its status alone.
  }
  if (response.ok) return data as Body;
  const problem = (data ?? {}) as Partial<Problem>;
  const error = new ApiError(
    response.status,
    problem.code ?? `HTTP_${response.status}`,
    problem.message ?? `The API answered ${response.status} ${response.statusText}`,
    Array.isArray(problem.errors) ? problem.errors : [],
  );
  if (response.status === 401 || response.status === 403) onSessionLost?.(error);
  throw error;
}

function compact(filters: EventFilters): Record<string, string> {
  const entries = Object.entries(filters) as Array<[string, string | undefined]>;
  return Object.fromEntries(entries.filter((entry): entry is [string, string] => !!entry[1]));
}

export const adminApi = {
  login: (email: string, password: string) =>
    request<{ account: Account }>('POST', '/api/admin/session', { email, password }),
  logout: () => request<null>('DELETE', '/api/admin/session'),
  queue: () => request<QueueState>('GET', '/api/admin/queue'),
  /** The service's history, or one account's (by handle or id). */
  history(window: HistoryWindow, account?: string) {
    const query = new URLSearchParams({ window, ...(account === undefined ? {} : { account }) });
    return request<History>('GET', `/api/admin/history?${query.toString()}`);
  },
  /** The accounts with the most unfinished events first. */
  accountBacklogs: (limit = 10) =>
    request<AccountBacklogList>('GET', `/api/admin/queue/accounts?limit=${limit}`),
  /** One account's page, by id or handle. */
  account: (ref: string) =>
    request<AccountPage>('GET', `/api/admin/accounts/${encodeURIComponent(ref)}`),
  setShare: (accountId: string, share: AccountShare) =>
    request<AccountShare>(
      'PUT',
      `/api/admin/accounts/${encodeURIComponent(accountId)}/share`,
      share,
    ),
  pause: () => request<PauseState>('POST', '/api/admin/queue/pause', {}),
  resume: () => request<PauseState>('POST', '/api/admin/queue/resume', {}),
  storage: () => request<EventLogStorage>('GET', '/api/admin/storage'),
  /** The newest endpoints first: the panel shows one page of them. */
  endpoints: (limit = 50) =>
    request<AdminEndpointList>('GET', `/api/admin/endpoints?limit=${limit}`),
  resendDelivery: (id: string) =>
    request<AdminDelivery>('POST', `/api/admin/deliveries/${encodeURIComponent(id)}/resend`, {}),
  resendFailed: (filters: Omit<DeliveryResendRequest, 'status'>) =>
    request<DeliveryResendResult>('POST', '/api/admin/deliveries/resend', filters),

  /** The event names of the catalog (GET /api/event-types), for the search's suggestions. */
  eventTypes: () => request<{ incoming: Array<{ name: string }> }>('GET', '/api/event-types'),

  searchEvents(filters: EventFilters, cursor?: string, limit = 25) {
    const query = new URLSearchParams({ ...compact(filters), limit: String(limit) });
    if (cursor !== undefined) query.set('cursor', cursor);
    return request<EventSearchResult>('GET', `/api/admin/events?${query.toString()}`);
  },
  event: (id: string) => request<EventDetail>('GET', `/api/admin/events/${encodeURIComponent(id)}`),
  retryEvent: (id: string) =>
    request<null>('POST', `/api/admin/events/${encodeURIComponent(id)}/retry`, {}),

  /**
   * Retries the failed events matching the filters (the status filter does not apply):
   * failures of the events' own only with an error code named or `includeOwnFailures`.
   */
  retryMatching: (filters: EventFilters, includeOwnFailures = false) =>
    request<BulkRetryResult>('POST', '/api/admin/events/retry', {
      ...bulkRetryBody(filters),
      includeOwnFailures,
    }),
  /** What retryMatching would do now: the matching failures by code, and which it takes. */
  previewRetry: (filters: EventFilters, includeOwnFailures = false) =>
    request<BulkRetryPreview>('POST', '/api/admin/events/retry/preview', {
      ...bulkRetryBody(filters),
      includeOwnFailures,
    }),
};

/** A search's filters as a bulk retry's body: the payload filter as an object, not JSON text. */
function bulkRetryBody(filters: EventFilters): Record<string, unknown> {
  const { status: _failedOnly, payload, ...rest } = compact(filters);
  return payload === undefined ? rest : { ...rest, payload: JSON.parse(payload) as unknown };
}
