// The event search's filter form: reads its fields as filters, shows the API's objections.
import type { EventStatus } from '@ingest/contracts';
import { adminApi, type ApiError, type EventFilters } from './api';
import { el, fill } from './dom';
import { localInputToIso } from './format';

// A copy of the contracts' EVENT_STATUSES: importing it would bring zod into the page.
// `satisfies` refuses a status the contract lacks; the type check below refuses a copy
// that misses one. Neither leaves a byte in the bundle. The event names come from the
// catalog (GET /api/event-types), so a new event type needs nothing here.
const EVENT_STATUSES = [
  'queued',
  'processing',
  'succeeded',
  'failed',
  'rejected',
] as const satisfies readonly EventStatus[];
type NamesEvery<All extends string, List extends readonly string[]> = [
  Exclude<All, List[number]>,
] extends [never]
  ? true
  : false;
type Holds<Check extends true> = Check;
type _EveryStatusListed = Holds<NamesEvery<EventStatus, typeof EVENT_STATUSES>>;

export interface SearchForm {
  element: HTMLFormElement;
  filters(): EventFilters;
  showError(error: ApiError | Error | null): void;
}

const field = (label: string, control: HTMLElement, wide = false) =>
  el('label', { class: wide ? 'field wide' : 'field' }, el('span', {}, label), control);

const text = (name: string, placeholder = '') =>
  el('input', { name, placeholder, testid: `filter-${name}`, autocomplete: 'off' });

export function createSearchForm(extraButtons: HTMLElement[]): SearchForm {
  const status = el(
    'select',
    { name: 'status', testid: 'filter-status' },
    el('option', { value: '' }, 'any'),
    ...EVENT_STATUSES.map((value) => el('option', { value }, value)),
  );
  const event = text('event', 'article.update');
  event.setAttribute('list', 'event-names');
  const eventNames = el('datalist', { id: 'event-names' });
  // Suggestions only: the field takes any name, so a catalog that does not load costs nothing.
  void adminApi.eventTypes().then(
    ({ incoming }) =>
      fill(eventNames, ...incoming.map(({ name }) => el('option', { value: name }))),
    () => undefined,
  );
  const accountId = text('accountId', 'handle or uuid');
  const apiKeyId = text('apiKeyId', 'api key uuid');
  const slug = text('slug', 'hello-world');
  const errorCode = text('error', 'SLUG_TAKEN');
  const from = el('input', {
    name: 'from',
    type: 'datetime-local',
    step: 1,
    testid: 'filter-from',
  });
  const to = el('input', { name: 'to', type: 'datetime-local', step: 1, testid: 'filter-to' });
  // Failed events that failed from then on, whenever they came: what a retry after a fix
  // (a deploy, an outage's end) should take again.
  const failedSince = el('input', {
    name: 'failedSince',
    type: 'datetime-local',
    step: 1,
    testid: 'filter-failedSince',
  });
  const payload = text('payload', '{"category":"News"}');
  const error = el('div', { class: 'error', role: 'alert', testid: 'search-error', hidden: true });

  const element = el(
    'form',
    { class: 'filters', testid: 'search-form' },
    eventNames,
    field('Status', status),
    field('Event', event),
    field('Slug', slug),
    field('Error code', errorCode),
    field('Account', accountId),
    field('API key id', apiKeyId),
    field('Received from', from),
    field('Received before', to),
    field('Failed since', failedSince),
    field('Payload contains (JSON)', payload, true),
    el(
      'div',
      { class: 'actions' },
      el('button', { type: 'submit', class: 'primary', testid: 'search-submit' }, 'Search'),
      el('button', { type: 'reset', testid: 'search-reset' }, 'Clear'),
      ...extraButtons,
    ),
    error,
  );

  return {
    element,
    filters: () => ({
      status: status.value,
      event: event.value.trim(),
      accountId: accountId.value.trim(),
      apiKeyId: apiKeyId.value.trim(),
      slug: slug.value.trim(),
      error: errorCode.value.trim(),
      from: localInputToIso(from.value),
      to: localInputToIso(to.value),
      failedSince: localInputToIso(failedSince.value),
      payload: payload.value.trim(),
    }),
    showError(failure) {
      error.hidden = failure === null;
      if (failure === null) return;
      const problems = 'fieldErrors' in failure ? failure.fieldErrors : [];
      fill(
        error,
        el('p', {}, failure.message),
        problems.length === 0
          ? null
          : el('ul', {}, ...problems.map((p) => el('li', {}, `${p.path}: ${p.message}`))),
      );
    },
  };
}
