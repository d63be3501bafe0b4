// The operators' dashboard: queue state and history (polled), event search and detail,
// the event log's storage (polled slowly: partitions change by the hour at most), and
// the webhook endpoints with their deliveries.
import { onAccountLinks } from './account-link';
import { createAccountPage, searchWith } from './account-page';
import { adminApi, ApiError, whenSessionLost } from './api';
import { el } from './dom';
import { createEndpointsPanel } from './endpoints-panel';
import { createHistoryChart } from './history-chart';
import { createEventDetail } from './event-detail';
import { createEventSearch } from './event-search';
import { OPERATOR_KEY } from './login';
import { createAccountsPanel } from './accounts-panel';
import { createQueuePanel } from './queue-panel';
import { createStoragePanel } from './storage-panel';

const BASE = import.meta.env.BASE_URL;
const POLL_MS = 2000;
const STORAGE_POLL_MS = 60_000;
const ENDPOINTS_POLL_MS = 10_000;
/** The backlog by account costs a pass over the unfinished events: read less often. */
const ACCOUNTS_POLL_MS = 5_000;

const toLogin = (reason: string) => location.assign(`${BASE}login?reason=${reason}`);

function header(): HTMLElement {
  const logout = el('button', { type: 'button', testid: 'logout' }, 'Log out');
  logout.addEventListener('click', () => {
    logout.disabled = true;
    // A poll answered 401 after the logout must not send the page elsewhere first.
    whenSessionLost(() => undefined);
    sessionStorage.removeItem(OPERATOR_KEY);
    // Off to the login page either way: a failed logout leaves a session that expires.
    const leave = () => toLogin('logged-out');
    adminApi.logout().then(leave, leave);
  });
  const operator = sessionStorage.getItem(OPERATOR_KEY);
  return el(
    'header',
    { class: 'topbar' },
    el('h1', {}, 'Ingest operators'),
    el('span', { class: 'spacer' }),
    el('a', { href: `${BASE}queues`, testid: 'bull-board-link' }, 'Jobs in bull-board'),
    operator === null ? null : el('span', { class: 'muted', testid: 'operator' }, operator),
    logout,
  );
}

const messageOf = (failure: unknown): string =>
  failure instanceof ApiError ? failure.message : String(failure);

/**
 * Runs `work` every `intervalMs`; the function returned runs it at once (and starts the
 * wait for the next turn again). A hidden tab skips its turns rather than polling for nobody.
 */
function polled(intervalMs: number, work: () => Promise<void>): () => void {
  let timer: number | undefined;
  const run = async () => {
    window.clearTimeout(timer);
    if (!document.hidden) await work();
    timer = window.setTimeout(() => void run(), intervalMs);
  };
  return () => void run();
}

export function renderDashboard(root: HTMLElement): void {
  whenSessionLost((error) => toLogin(error.status === 403 ? 'forbidden' : 'expired'));

  const poll = polled(POLL_MS, async () => {
    try {
      const [state, lastHour] = await Promise.all([
        adminApi.queue(),
        adminApi.history('hour'),
        chart.refresh(),
      ]);
      queue.update(state, lastHour);
    } catch (failure) {
      queue.showError(messageOf(failure));
    }
  });
  const pollStorage = polled(STORAGE_POLL_MS, async () => {
    try {
      storage.update(await adminApi.storage());
    } catch (failure) {
      storage.showError(messageOf(failure));
    }
  });
  const pollAccounts = polled(ACCOUNTS_POLL_MS, async () => {
    try {
      accounts.update(await adminApi.accountBacklogs());
    } catch (failure) {
      accounts.showError(messageOf(failure));
    }
  });
  const pollEndpoints = polled(ENDPOINTS_POLL_MS, async () => {
    try {
      endpoints.update(await adminApi.endpoints());
    } catch (failure) {
      endpoints.showError(messageOf(failure));
    }
  });
  // After a pause or resume the listed events move on too: the last search is read again.
  const queue = createQueuePanel(() => {
    poll();
    void search.refresh();
  });
  const accounts = createAccountsPanel();
  const endpoints = createEndpointsPanel(pollEndpoints);
  const storage = createStoragePanel(pollStorage);
  const chart = createHistoryChart();
  const search = createEventSearch((id) => detail.open(id));
  const detail = createEventDetail((event) => search.updateRow(event));
  const accountPage = createAccountPage((filters) => searchWith(search.element, filters));
  onAccountLinks((id) => accountPage.open(id));
  document.addEventListener('visibilitychange', () => {
    if (document.hidden) return;
    poll();
    pollAccounts();
    pollStorage();
    pollEndpoints();
  });

  root.replaceChildren(
    header(),
    el(
      'main',
      { class: 'layout' },
      el('div', { class: 'overview' }, queue.element, chart.element),
      accounts.element,
      accountPage.element,
      el('div', { class: 'investigate' }, search.element, detail.element),
      endpoints.element,
      storage.element,
    ),
  );
  poll();
  pollAccounts();
  pollStorage();
  pollEndpoints();
  void search.search();
}
