// The event search across accounts: filters, a page at a time, "load more", bulk retry.
import type { EventSearchResult, OperatorEvent } from '@ingest/contracts';
import { adminApi, ApiError, type EventFilters } from './api';
import { accountLink } from './account-link';
import { badge, el, fill } from './dom';
import { formatMatches, formatTime, shortId } from './format';
import { createSearchForm } from './search-form';

export interface EventSearch {
  element: HTMLElement;
  search(): Promise<void>;
  /** Reads the last search again (its filters as applied, not as since typed). */
  refresh(): Promise<void>;
  /** Redraws the row of an event that changed (after a retry, say). */
  updateRow(event: OperatorEvent): void;
}

function outcomeOf(event: OperatorEvent): string {
  if (event.error !== null) return event.error.code;
  if (event.result?.type === 'article') return event.result.slug;
  return event.result?.type ?? '';
}

export function createEventSearch(onOpen: (id: string) => void): EventSearch {
  const bulk = el(
    'button',
    { type: 'button', class: 'danger', testid: 'bulk-retry' },
    'Retry failed matching…',
  );
  const notice = el('p', { class: 'notice', role: 'status', testid: 'bulk-result' });
  const form = createSearchForm([bulk]);
  const rows = el('tbody', { testid: 'event-rows' });
  const summary = el('p', { class: 'muted', role: 'status', testid: 'search-summary' });
  const more = el('button', { type: 'button', testid: 'load-more', hidden: true }, 'Load more');
  // Busy from a search's start to its rows (or its error): readers, and tests, wait on it.
  const table = el('table', { testid: 'events-table', 'aria-busy': 'false' });
  let applied: EventFilters = {};
  let cursor: string | null = null;
  let shown = 0;
  /** How many events the search matches: its first page says, later pages do not. */
  let matches: EventSearchResult['matches'];
  let latest = 0;

  const row = (event: OperatorEvent) => {
    // The row opens the event; the button makes that reachable by keyboard too.
    const open = el(
      'button',
      { type: 'button', class: 'link', testid: 'event-open', title: event.id },
      shortId(event.id),
    );
    const tr = el(
      'tr',
      { testid: 'event-row', 'data-event-id': event.id, 'data-status': event.status },
      el('td', {}, open),
      el('td', {}, formatTime(event.receivedAt)),
      el('td', {}, event.event ?? '(none)'),
      el('td', {}, badge(event.status)),
      el('td', { class: 'num' }, String(event.attempts)),
      el(
        'td',
        { title: event.accountId, testid: 'event-account' },
        accountLink(event.accountId, event.accountHandle ?? shortId(event.accountId)),
      ),
      el('td', {}, outcomeOf(event)),
      el('td', { class: 'num' }, String(event.replays)),
    );
    tr.addEventListener('click', () => onOpen(event.id));
    return tr;
  };

  /** The first page for `filters`, or with `next` the page after those already shown. */
  async function load(filters: EventFilters, next = false): Promise<void> {
    const ticket = (latest += 1);
    more.disabled = true;
    table.setAttribute('aria-busy', 'true');
    try {
      const page = await adminApi.searchEvents(filters, next ? (cursor ?? undefined) : undefined);
      if (ticket !== latest) return; // a newer search or page has been asked for since
      if (!next) {
        applied = filters;
        rows.replaceChildren();
        shown = 0;
        matches = page.matches;
      }
      rows.append(...page.items.map(row));
      shown += page.items.length;
      cursor = page.nextCursor;
      more.hidden = cursor === null;
      // While more pages remain, the summary also says how many rows show.
      const partly = cursor === null ? undefined : shown;
      summary.textContent =
        matches === undefined ? `${shown} shown` : formatMatches(matches, partly);
      form.showError(null);
    } catch (failure) {
      if (ticket !== latest) return;
      if (!next) {
        // The error stands alone: the rows of another search would read as this one's.
        rows.replaceChildren();
        shown = 0;
        cursor = null;
        more.hidden = true;
        summary.textContent = '';
      }
      form.showError(failure instanceof Error ? failure : new Error(String(failure)));
    } finally {
      more.disabled = false;
      if (ticket === latest) table.setAttribute('aria-busy', 'false');
    }
  }

  form.element.addEventListener('submit', (submitted) => {
    submitted.preventDefault();
    notice.textContent = '';
    void load(form.filters());
  });
  more.addEventListener('click', () => void load(applied, true));
  bulk.addEventListener('click', () => void retryMatching());

  /**
   * Asks the API what the retry would take (by error code) and says so before it runs;
   * failures of the events' own are left out unless the search names their code.
   */
  async function retryMatching(): Promise<void> {
    const named = Object.entries(applied).filter(([key, value]) => value && key !== 'status');
    const list = named.map(([key, value]) => `${key} = ${String(value)}`).join(', ');
    const what = list === '' ? 'of every account' : `with ${list}`;
    bulk.disabled = true;
    try {
      const preview = await adminApi.previewRetry(applied);
      const codes = preview.byCode
        .map(
          ({ code, events, retried }) =>
            `  ${code}: ${events}${retried ? '' : ' (left out: a retry meets it again unless the content changed; name the code to retry them)'}`,
        )
        .join('\n');
      if (preview.willRetry === 0) {
        notice.textContent = `Nothing to retry: no failed event ${what} ${preview.leftOut > 0 ? `failed for a reason a retry can fix (${preview.leftOut} left out)` : 'matches'}`;
        return;
      }
      const question =
        `Retry ${preview.willRetry} failed event${preview.willRetry === 1 ? '' : 's'} ${what}?` +
        `\n\nBy error code${preview.capped ? ' (of the first 100,000)' : ''}:\n${codes}`;
      if (!confirm(question)) return;
      const { retried, leftOut } = await adminApi.retryMatching(applied);
      notice.textContent =
        `${retried} failed event${retried === 1 ? '' : 's'} queued again` +
        (leftOut > 0 ? `; ${leftOut} left out (failed for a reason of their own)` : '');
      await load(applied);
    } catch (failure) {
      form.showError(failure instanceof ApiError ? failure : new Error(String(failure)));
    } finally {
      bulk.disabled = false;
    }
  }

  const headings = ['Id', 'Received', 'Event', 'Status', 'Tries', 'Account', 'Outcome', 'Replays'];
  fill(
    table,
    el('thead', {}, el('tr', {}, ...headings.map((heading) => el('th', {}, heading)))),
    rows,
  );
  const element = el(
    'section',
    { class: 'card events', 'aria-labelledby': 'events-title' },
    el('header', { class: 'card-header' }, el('h2', { id: 'events-title' }, 'Events')),
    form.element,
    notice,
    summary,
    el('div', { class: 'table-wrap' }, table),
    more,
  );

  return {
    element,
    search: () => load(form.filters()),
    refresh: () => load(applied),
    updateRow(event) {
      const old = rows.querySelector(`tr[data-event-id="${CSS.escape(event.id)}"]`);
      if (old !== null) old.replaceWith(row(event));
    },
  };
}
