// The event log's storage: retention, partitions with their sizes and states, the next
// drop, and the partitions held past retention because events in them are unfinished.
import type { EventLogPartition, EventLogStorage } from '@ingest/contracts';
import { badge, el, fill } from './dom';
import {
  formatBytes,
  formatClock,
  formatEstimate,
  formatPeriod,
  formatRetention,
  formatTime,
} from './format';

export interface StoragePanel {
  element: HTMLElement;
  update(storage: EventLogStorage): void;
  showError(message: string): void;
}

const INTERVALS: Record<EventLogStorage['partitionInterval'], string> = {
  hour: 'hourly',
  day: 'daily',
  week: 'weekly',
};

function nextDropOf(storage: EventLogStorage): string {
  const next = storage.nextDrop;
  if (next === null) return storage.retentionDays === 0 ? 'never' : 'none';
  // Past its cut-off already: the workers' next maintenance round drops it.
  const when = Date.parse(next.at) <= Date.now() ? 'due now' : formatTime(next.at);
  return `${next.partition}, ${when}`;
}

const row = (partition: EventLogPartition) =>
  el(
    'tr',
    { testid: 'storage-row', 'data-partition': partition.name, 'data-state': partition.state },
    el('td', { class: 'mono' }, partition.name),
    el('td', { class: 'mono' }, formatPeriod(partition.from, partition.to)),
    el('td', { class: 'num' }, formatBytes(partition.sizeBytes)),
    el('td', { class: 'num' }, formatEstimate(partition.rowsEstimate)),
    el('td', { title: partition.heldReason }, badge(partition.state)),
  );

/** `onRefresh` reads the storage again, now rather than at the next poll. */
export function createStoragePanel(onRefresh: () => void): StoragePanel {
  const retention = el('strong', { testid: 'storage-retention' }, '…');
  const interval = el('strong', { testid: 'storage-interval' }, '…');
  const archive = el('strong', { testid: 'storage-archive' }, '…');
  const size = el('strong', { testid: 'storage-size' }, '…');
  const premade = el('strong', { testid: 'storage-premade' }, '…');
  const nextDrop = el('strong', { testid: 'storage-next-drop' }, '…');
  const heldList = el('ul', { testid: 'storage-held' });
  const held = el(
    'div',
    { class: 'held', hidden: true },
    el('h3', {}, 'Held past retention'),
    heldList,
  );
  const rows = el('tbody', { testid: 'storage-rows' });
  const updated = el('span', { class: 'muted', testid: 'storage-updated' });
  const error = el('p', { class: 'error', role: 'alert', testid: 'storage-error', hidden: true });
  const refresh = el('button', { type: 'button', testid: 'storage-refresh' }, 'Refresh');
  refresh.addEventListener('click', onRefresh);

  const headings = ['Partition', 'Ids made (UTC)', 'Size', 'Rows (estimate)', 'State'];
  const element = el(
    'section',
    { class: 'card storage', testid: 'storage-panel', 'aria-labelledby': 'storage-title' },
    el(
      'header',
      { class: 'card-header' },
      el('h2', { id: 'storage-title' }, 'Event log storage'),
      el('span', { class: 'spacer' }),
      updated,
      refresh,
    ),
    el(
      'p',
      { class: 'facts' },
      el('span', {}, 'Retention ', retention),
      el('span', {}, 'Partitions ', interval),
      el('span', {}, 'Archive ', archive),
      el('span', {}, 'Size ', size),
      el('span', {}, 'Made ahead until ', premade),
      el('span', {}, 'Next drop ', nextDrop),
    ),
    held,
    el(
      'div',
      { class: 'table-wrap' },
      el(
        'table',
        { testid: 'storage-table' },
        el('thead', {}, el('tr', {}, ...headings.map((heading) => el('th', {}, heading)))),
        rows,
      ),
    ),
    error,
  );

  return {
    element,
    update(storage) {
      retention.textContent = formatRetention(storage.retentionDays);
      interval.textContent = INTERVALS[storage.partitionInterval];
      archive.textContent = storage.archive.enabled ? 'on' : 'off';
      const { webhook_logs: events, event_attempts: attempts } = storage.totals;
      size.textContent = `${formatBytes(events.sizeBytes)} events · ${formatBytes(attempts.sizeBytes)} attempts`;
      premade.textContent = formatTime(storage.premadeUntil);
      nextDrop.textContent = nextDropOf(storage);
      fill(
        heldList,
        ...storage.held.map((partition) =>
          el('li', {}, el('span', { class: 'mono' }, partition.name), ': ', partition.reason),
        ),
      );
      held.hidden = storage.held.length === 0;
      rows.replaceChildren(...storage.partitions.map(row));
      updated.textContent = `updated ${formatClock(new Date())}`;
      error.hidden = true;
    },
    showError(message) {
      error.textContent = `Storage unavailable: ${message}`;
      error.hidden = false;
    },
  };
}
