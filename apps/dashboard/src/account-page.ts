// One account's page: backlog, share (editable, with who changed it), recent failures and
// refusals by code, keys, endpoints, and links to its events. It opens from any account
// link (account-link.ts) and reads the account again after each change of its share.
import type { AccountPage } from '@ingest/contracts';
import { adminApi, ApiError, type EventFilters } from './api';
import {
  activityTable,
  apiKeysTable,
  codesTable,
  describeShare,
  endpointsTable,
  shareChangesTable,
} from './account-sections';
import { shareForm } from './account-share-form';
import { el, fill } from './dom';
import { formatSeconds, formatTime } from './format';
import { createHistoryChart, type HistoryChart } from './history-chart';

/** The page's history is read again this often while the page is open. */
const HISTORY_POLL_MS = 5_000;

export interface AccountPagePanel {
  element: HTMLElement;
  /** Opens the account (an id or a handle) and brings the page into view. */
  open(ref: string): void;
}

const fact = (label: string, value: Node | string, testid?: string) => [
  el('dt', {}, label),
  el('dd', { testid }, value),
];

/** `showEvents` sets the event search to these filters and runs it. */
export function createAccountPage(showEvents: (filters: EventFilters) => void): AccountPagePanel {
  const title = el('h2', { id: 'account-page-title', testid: 'account-page-title' }, 'Account');
  const close = el('button', { type: 'button', testid: 'account-page-close' }, 'Close');
  const reload = el('button', { type: 'button', testid: 'account-page-reload' }, 'Reload');
  const message = el('p', { class: 'notice', role: 'status', testid: 'account-page-message' });
  const body = el('div', {});
  const history = el('div', { testid: 'account-history' });
  const element = el(
    'section',
    {
      class: 'card account-page',
      testid: 'account-page',
      hidden: true,
      'aria-labelledby': 'account-page-title',
    },
    el('header', { class: 'card-header' }, title, el('span', { class: 'spacer' }), reload, close),
    message,
    body,
    history,
  );
  let current: string | undefined;
  let chart: HistoryChart | undefined;
  let historyTimer: number | undefined;

  /** Shows the history of the account now on the page (none: the page closed). */
  function show(accountId: string | null): void {
    window.clearInterval(historyTimer);
    if (accountId === null) {
      element.removeAttribute('data-account-id');
      chart = undefined;
      fill(history);
      return;
    }
    if (element.getAttribute('data-account-id') !== accountId) {
      element.setAttribute('data-account-id', accountId);
      chart = createHistoryChart(accountId);
      fill(history, chart.element);
    }
    void chart?.refresh();
    historyTimer = window.setInterval(() => {
      if (!document.hidden) void chart?.refresh();
    }, HISTORY_POLL_MS);
  }

  function render(account: AccountPage): void {
    title.textContent = `Account ${account.handle}`;
    const events = el('button', { type: 'button', testid: 'account-events' }, 'Its events');
    events.addEventListener('click', () => showEvents({ accountId: account.id }));
    const failures = el('button', { type: 'button', testid: 'account-failures' }, 'Its failures');
    failures.addEventListener('click', () =>
      showEvents({ accountId: account.id, status: 'failed' }),
    );
    const { backlog } = account;
    fill(
      body,
      el(
        'dl',
        { class: 'facts-grid' },
        ...fact('Handle', account.handle, 'account-handle'),
        ...fact('Id', account.id, 'account-id'),
        ...fact('Email', account.email),
        ...fact('Created', formatTime(account.createdAt)),
        ...fact('Queued', String(backlog.queued), 'account-page-queued'),
        ...fact('Processing', String(backlog.processing), 'account-page-processing'),
        ...fact('Oldest waiting', formatSeconds(backlog.oldestWaitingAgeSeconds)),
        ...fact('Share', describeShare(account.share), 'account-share'),
        ...fact(
          'Rate limits',
          `${account.rateLimits.contentPerMinute.toLocaleString()} events / min · ${account.rateLimits.receiptsPerMinute.toLocaleString()} receipt reads / min`,
          'account-rate-limits',
        ),
      ),
      el('p', { class: 'actions' }, events, failures),
      el('h3', {}, 'Events'),
      activityTable(account),
      el('h3', {}, 'Failures by code'),
      codesTable('account-failures-by-code', account.activity.failures, 'No failure.'),
      el('h3', {}, 'Refusals by code'),
      codesTable('account-refusals-by-code', account.activity.refusals, 'No refusal.'),
      el('h3', {}, 'Share'),
      shareForm(account, () => {
        message.textContent = 'Share saved.';
        if (current !== undefined) void load(current);
      }),
      shareChangesTable(account),
      el('h3', {}, 'API keys'),
      apiKeysTable(account),
      el('h3', {}, 'Webhook endpoints'),
      endpointsTable(account),
    );
  }

  async function load(ref: string): Promise<void> {
    try {
      const account = await adminApi.account(ref);
      if (current !== ref) return;
      render(account);
      show(account.id);
    } catch (failure) {
      if (current !== ref) return;
      message.textContent = failure instanceof ApiError ? failure.message : String(failure);
    }
  }

  reload.addEventListener('click', () => {
    if (current !== undefined) void load(current);
  });
  close.addEventListener('click', () => {
    current = undefined;
    element.hidden = true;
    show(null);
  });

  return {
    element,
    open(ref) {
      current = ref;
      message.textContent = '';
      fill(body, el('p', { class: 'muted' }, 'Loading…'));
      element.hidden = false;
      element.scrollIntoView({ block: 'start' });
      void load(ref);
    },
  };
}

/**
 * Sets the fields of the search form within `search` (named as the API's filters) to
 * `filters`, clears the others, and submits it: the search runs as if they were typed.
 */
export function searchWith(search: HTMLElement, filters: EventFilters): void {
  const form = search.querySelector('form');
  if (form === null) return;
  form.reset();
  for (const [name, value] of Object.entries(filters)) {
    const field = form.elements.namedItem(name);
    if (field instanceof HTMLInputElement || field instanceof HTMLSelectElement)
      field.value = value ?? '';
  }
  form.requestSubmit();
  search.scrollIntoView({ block: 'start' });
}
