// One event in full: payload, every attempt and its error, timings, request id, replays;
// and the retry of a failed event. While the event is unfinished the panel refreshes.
import { adminApi, ApiError } from './api';
import { badge, el, fill } from './dom';
import { formatBetween, formatTime, json, shortId } from './format';
import type { EventDetail, OperatorEvent } from '@ingest/contracts';

const REFRESH_MS = 1000;
const UNFINISHED = new Set(['queued', 'processing']);

export interface EventDetailPanel {
  element: HTMLElement;
  open(id: string): void;
}

const fact = (label: string, value: Node | string, testid?: string) => [
  el('dt', {}, label),
  el('dd', { testid }, value),
];

function attemptsTable(detail: EventDetail): HTMLElement {
  if (detail.attemptsLog.length === 0) return el('p', { class: 'muted' }, 'No attempts yet.');
  const table = el(
    'table',
    { testid: 'detail-attempts' },
    el(
      'thead',
      {},
      el('tr', {}, ...['#', 'Started', 'Took', 'Outcome', 'Error'].map((h) => el('th', {}, h))),
    ),
    el(
      'tbody',
      {},
      ...detail.attemptsLog.map((attempt) =>
        el(
          'tr',
          { testid: 'detail-attempt' },
          el('td', { class: 'num' }, String(attempt.number)),
          el('td', {}, formatTime(attempt.startedAt)),
          el('td', {}, formatBetween(attempt.startedAt, attempt.finishedAt)),
          el('td', {}, attempt.outcome === null ? 'running' : badge(attempt.outcome)),
          el(
            'td',
            { class: 'wrap' },
            attempt.error?.code ?? '',
            attempt.error === null ? null : el('div', { class: 'muted' }, attempt.error.message),
          ),
        ),
      ),
    ),
  );
  return el('div', { class: 'table-wrap' }, table);
}

/** `onChanged` hears every fresh copy of the event, so its search row can follow. */
export function createEventDetail(onChanged: (event: OperatorEvent) => void): EventDetailPanel {
  const body = el('div', { class: 'detail-body' });
  const message = el('p', { class: 'notice', role: 'status', testid: 'detail-message' });
  const close = el('button', { type: 'button', testid: 'detail-close' }, 'Close');
  const element = el(
    'aside',
    { class: 'card detail', testid: 'event-detail', hidden: true, 'aria-label': 'Event detail' },
    el(
      'header',
      { class: 'card-header' },
      el('h2', {}, 'Event'),
      el('span', { class: 'spacer' }),
      close,
    ),
    message,
    body,
  );
  let current: string | undefined;
  let timer: number | undefined;

  function render(detail: EventDetail): void {
    const retry = el(
      'button',
      { type: 'button', class: 'primary', testid: 'retry-event' },
      'Retry',
    );
    retry.addEventListener('click', () => {
      retry.disabled = true;
      adminApi
        .retryEvent(detail.id)
        .then(() => (message.textContent = 'Queued again; waiting for the outcome…'))
        .catch((failure: unknown) => {
          message.textContent = failure instanceof ApiError ? failure.message : String(failure);
        })
        .finally(() => void load(detail.id));
    });
    const account = `${detail.account.handle} · ${detail.account.email}`;
    fill(
      body,
      el(
        'dl',
        { class: 'facts-grid' },
        ...fact('Id', detail.id, 'detail-id'),
        ...fact('Status', badge(detail.status, 'detail-status')),
        ...fact('Event', detail.event ?? '(none)', 'detail-event'),
        ...fact('Account', el('span', { title: detail.account.id }, account)),
        ...fact(
          'API key',
          detail.apiKeyId === null
            ? '—'
            : el('span', { title: detail.apiKeyId }, detail.apiKeyName ?? shortId(detail.apiKeyId)),
        ),
        ...fact('Request id', detail.requestId, 'detail-request-id'),
        ...fact('Received', formatTime(detail.receivedAt)),
        ...fact('Started', formatTime(detail.startedAt)),
        ...fact('Finished', formatTime(detail.finishedAt)),
        ...fact('Queue to finish', formatBetween(detail.receivedAt, detail.finishedAt)),
        ...fact('Attempts', String(detail.attempts)),
        ...fact('Replays', `${detail.replays} (last ${formatTime(detail.lastReplayedAt)})`),
        ...fact('Slugs', detail.orderKeys.join(', ') || '—'),
        ...fact('Result', detail.result === null ? '—' : json(detail.result), 'detail-result'),
        ...fact(
          'Error',
          detail.error === null ? '—' : `${detail.error.code}: ${detail.error.message}`,
          'detail-error',
        ),
      ),
      detail.status === 'failed' ? el('p', {}, retry) : null,
      el('h3', {}, 'Attempts'),
      attemptsTable(detail),
      el('h3', {}, 'Payload'),
      el('pre', { testid: 'detail-payload' }, json(detail.payload)),
    );
  }

  async function load(id: string): Promise<void> {
    window.clearTimeout(timer);
    try {
      const detail = await adminApi.event(id);
      if (current !== id) return;
      render(detail);
      onChanged(detail);
      if (UNFINISHED.has(detail.status)) timer = window.setTimeout(() => void load(id), REFRESH_MS);
      else if (message.textContent?.startsWith('Queued again')) message.textContent = '';
    } catch (failure) {
      if (current !== id) return;
      message.textContent = failure instanceof ApiError ? failure.message : String(failure);
    }
  }

  close.addEventListener('click', () => {
    current = undefined;
    window.clearTimeout(timer);
    element.hidden = true;
  });

  return {
    element,
    open(id) {
      current = id;
      message.textContent = '';
      fill(body, el('p', { class: 'muted' }, 'Loading…'));
      element.hidden = false;
      void load(id);
    },
  };
}
