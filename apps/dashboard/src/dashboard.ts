// The operators' dashboard: queue state and throughput (polled), event search and detail.
import { adminApi, ApiError, whenSessionLost } from './api';
import { el } from './dom';
import { createEventDetail } from './event-detail';
import { createEventSearch } from './event-search';
import { OPERATOR_KEY } from './login';
import { createQueuePanel } from './queue-panel';
import { createThroughputChart } from './throughput-chart';

const BASE = import.meta.env.BASE_URL;
const POLL_MS = 2000;

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

export function renderDashboard(root: HTMLElement): void {
  whenSessionLost((error) => toLogin(error.status === 403 ? 'forbidden' : 'expired'));

  let timer: number | undefined;
  const poll = async () => {
    window.clearTimeout(timer);
    // A hidden tab skips its turn rather than polling for nobody.
    if (!document.hidden) {
      try {
        const state = await adminApi.queue();
        queue.update(state);
        chart.update(state.throughput);
      } catch (failure) {
        queue.showError(failure instanceof ApiError ? failure.message : String(failure));
      }
    }
    timer = window.setTimeout(() => void poll(), POLL_MS);
  };
  const queue = createQueuePanel(() => void poll());
  const chart = createThroughputChart();
  const search = createEventSearch((id) => detail.open(id));
  const detail = createEventDetail((event) => search.updateRow(event));
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden) void poll();
  });

  root.replaceChildren(
    header(),
    el(
      'main',
      { class: 'layout' },
      el('div', { class: 'overview' }, queue.element, chart.element),
      el('div', { class: 'investigate' }, search.element, detail.element),
    ),
  );
  void poll();
  void search.search();
}
