// Who is waiting in the queue: the accounts with the most unfinished events first, how
// long their oldest has waited, and each one's share of the service.
import type { AccountBacklog, AccountBacklogList } from '@ingest/contracts';
import { accountLink } from './account-link';
import { el, fill } from './dom';
import { formatClock, formatSeconds } from './format';

export interface AccountsPanel {
  element: HTMLElement;
  update(list: AccountBacklogList): void;
  showError(message: string): void;
}

const shareOf = ({ share }: AccountBacklog): string =>
  `weight ${share.weight}${share.maxInFlight === null ? '' : ` · at most ${share.maxInFlight} at once`}`;

export function createAccountsPanel(): AccountsPanel {
  const rows = el('tbody', { testid: 'account-rows' });
  const empty = el(
    'p',
    { class: 'muted', testid: 'accounts-empty' },
    'No account has events waiting.',
  );
  const error = el('p', { class: 'error', role: 'alert', testid: 'accounts-error', hidden: true });
  const updated = el('span', { class: 'muted', testid: 'accounts-updated' });

  const row = (account: AccountBacklog) =>
    el(
      'tr',
      { testid: 'account-row', 'data-account': account.accountId },
      el('td', {}, accountLink(account.accountId, account.handle)),
      el('td', { class: 'num', testid: 'account-queued' }, String(account.queued)),
      el('td', { class: 'num', testid: 'account-processing' }, String(account.processing)),
      el(
        'td',
        { class: 'num', testid: 'account-oldest' },
        formatSeconds(account.oldestWaitingAgeSeconds),
      ),
      el('td', { class: 'muted' }, shareOf(account)),
    );

  const headings = ['Account', 'Queued', 'Processing', 'Oldest waiting', 'Share'];
  const element = el(
    'section',
    { class: 'card accounts', testid: 'accounts-panel', 'aria-labelledby': 'accounts-title' },
    el(
      'header',
      { class: 'card-header' },
      el('h2', { id: 'accounts-title' }, 'Waiting, by account'),
      el('span', { class: 'spacer' }),
      updated,
    ),
    el(
      'div',
      { class: 'table-wrap' },
      el(
        'table',
        { testid: 'accounts-table' },
        el('thead', {}, el('tr', {}, ...headings.map((heading) => el('th', {}, heading)))),
        rows,
      ),
    ),
    empty,
    error,
  );

  return {
    element,
    update(list) {
      fill(rows, ...list.accounts.map(row));
      empty.hidden = list.accounts.length > 0;
      updated.textContent = `updated ${formatClock(new Date())}`;
      error.hidden = true;
    },
    showError(message) {
      error.textContent = `Accounts unavailable: ${message}`;
      error.hidden = false;
    },
  };
}
