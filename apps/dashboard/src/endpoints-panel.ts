// Every account's webhook endpoints: their state (why, when paused), what they are sent
// (filter, limits), how the last day's deliveries went, the last error; resend that one
// delivery, or every failed message of an endpoint. Pausing and resuming are the owner's.
import type { AdminEndpoint, AdminEndpointList } from '@ingest/contracts';
import { accountLink } from './account-link';
import { adminApi, ApiError } from './api';
import { badge, el, fill } from './dom';
import { formatClock, formatTime } from './format';

export interface EndpointsPanel {
  element: HTMLElement;
  update(list: AdminEndpointList): void;
  showError(message: string): void;
}

const rate = ({ lastDay }: AdminEndpoint): string =>
  lastDay.successRate === null ? '—' : `${Math.round(lastDay.successRate * 100)}%`;

const counts = ({ lastDay }: AdminEndpoint): string =>
  lastDay.succeeded + lastDay.failed + lastDay.pending === 0
    ? 'no deliveries in 24 h'
    : `${lastDay.succeeded} ok · ${lastDay.failed} failed · ${lastDay.pending} pending`;

/** Filters can nest deep: the row shows their start, the tooltip all of it. */
const FILTER_SHOWN_CHARS = 60;

/** The database keeps a filter's keys shortest first (`eq` before `field`): field reads first. */
const fieldFirst = (_key: string, value: unknown): unknown => {
  if (typeof value !== 'object' || value === null || !('field' in value)) return value;
  const { field, ...test } = value;
  return { field, ...test };
};

const filterCell = ({ filter }: AdminEndpoint) => {
  if (filter === null) return el('td', { class: 'muted', testid: 'endpoint-filter' }, 'all');
  const json = JSON.stringify(filter, fieldFirst);
  const shown =
    json.length > FILTER_SHOWN_CHARS ? `${json.slice(0, FILTER_SHOWN_CHARS - 1)}…` : json;
  return el('td', { class: 'mono', title: json, testid: 'endpoint-filter' }, shown);
};

const limits = ({ rate }: AdminEndpoint): string => {
  if (rate === null) return '—';
  const parts: string[] = [];
  if (rate.perSecond !== null) parts.push(`${rate.perSecond}/s`);
  if (rate.inFlight !== null) parts.push(`${rate.inFlight} at once`);
  return parts.join(' · ');
};

const stateCell = (endpoint: AdminEndpoint) => {
  const since = endpoint.state === 'paused' ? endpoint.pausedAt : endpoint.disabledAt;
  return el(
    'td',
    { title: endpoint.disabledReason ?? undefined, testid: 'endpoint-state' },
    badge(endpoint.state),
    since === null ? null : ` since ${formatTime(since)}`,
    endpoint.state === 'paused' && endpoint.pausedReason !== null
      ? el('div', { class: 'muted', testid: 'endpoint-paused-reason' }, endpoint.pausedReason)
      : null,
  );
};

/** `onChanged` reads the endpoints again, after a resend. */
export function createEndpointsPanel(onChanged: () => void): EndpointsPanel {
  const rows = el('tbody', { testid: 'endpoint-rows' });
  const notice = el('p', { class: 'muted', role: 'status', testid: 'endpoints-notice' });
  const error = el('p', { class: 'error', role: 'alert', testid: 'endpoints-error', hidden: true });
  const updated = el('span', { class: 'muted', testid: 'endpoints-updated' });

  const act = (button: HTMLButtonElement, work: () => Promise<string>) => {
    button.disabled = true;
    work()
      .then((message) => {
        notice.textContent = message;
        onChanged();
      })
      .catch((failure: unknown) => {
        error.textContent = failure instanceof ApiError ? failure.message : String(failure);
        error.hidden = false;
      })
      .finally(() => (button.disabled = false));
  };

  const resendLast = (endpoint: AdminEndpoint) => {
    const { lastError } = endpoint;
    if (lastError === null) return null;
    const button = el('button', { type: 'button', testid: 'resend-last' }, 'Resend');
    button.addEventListener('click', () =>
      act(button, async () => {
        await adminApi.resendDelivery(lastError.deliveryId);
        return `Delivery ${lastError.deliveryId.slice(0, 8)} sent again to ${endpoint.url}`;
      }),
    );
    return button;
  };

  const resendFailed = (endpoint: AdminEndpoint) => {
    const button = el('button', { type: 'button', testid: 'resend-failed' }, 'Resend failed');
    button.addEventListener('click', () => {
      if (!confirm(`Deliver every failed message of ${endpoint.url} again? (Up to 1,000.)`)) return;
      act(button, async () => {
        const { resent, more } = await adminApi.resendFailed({ endpointId: endpoint.id });
        return `${resent} failed message${resent === 1 ? '' : 's'} sent again to ${endpoint.url}${more ? ' (more are left)' : ''}`;
      });
    });
    return button;
  };

  const row = (endpoint: AdminEndpoint) =>
    el(
      'tr',
      { testid: 'endpoint-row', 'data-endpoint': endpoint.id, 'data-state': endpoint.state },
      el('td', { class: 'mono', title: endpoint.description ?? undefined }, endpoint.url),
      el(
        'td',
        { testid: 'endpoint-account' },
        accountLink(endpoint.account.id, endpoint.account.handle),
      ),
      stateCell(endpoint),
      filterCell(endpoint),
      el('td', { class: 'num', testid: 'endpoint-limits' }, limits(endpoint)),
      el('td', { class: 'num', testid: 'endpoint-rate' }, rate(endpoint)),
      el('td', { class: 'muted' }, counts(endpoint)),
      el(
        'td',
        { testid: 'endpoint-last-error' },
        endpoint.lastError === null
          ? '—'
          : `${formatTime(endpoint.lastError.at)}: ${endpoint.lastError.error}`,
        ' ',
        resendLast(endpoint),
      ),
      el('td', {}, resendFailed(endpoint)),
    );

  const headings = [
    'Endpoint',
    'Account',
    'State',
    'Filter',
    'Limits',
    'Success (24 h)',
    'Deliveries (24 h)',
    'Last error',
    '',
  ];
  const element = el(
    'section',
    { class: 'card endpoints', testid: 'endpoints-panel', 'aria-labelledby': 'endpoints-title' },
    el(
      'header',
      { class: 'card-header' },
      el('h2', { id: 'endpoints-title' }, 'Webhook endpoints'),
      el('span', { class: 'spacer' }),
      updated,
    ),
    notice,
    el(
      'div',
      { class: 'table-wrap' },
      el(
        'table',
        { testid: 'endpoints-table' },
        el('thead', {}, el('tr', {}, ...headings.map((heading) => el('th', {}, heading)))),
        rows,
      ),
    ),
    error,
  );

  return {
    element,
    update(list) {
      fill(rows, ...list.items.map(row));
      updated.textContent = `updated ${formatClock(new Date())}`;
      error.hidden = true;
    },
    showError(message) {
      error.textContent = `Endpoints unavailable: ${message}`;
      error.hidden = false;
    },
  };
}
