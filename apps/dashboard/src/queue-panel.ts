// Live queue state: jobs per state, workers, the oldest waiting job, pause and resume.
import type { History, PauseState, QueueState } from '@ingest/contracts';
import { adminApi, ApiError } from './api';
import { el, fill } from './dom';
import { formatClock, formatSeconds } from './format';

const COUNTS = ['waiting', 'active', 'delayed', 'failed', 'paused', 'completed'] as const;

/** The headline figures: events in the log, and the last hour's failures and refusals. */
const FIGURES = [
  { name: 'queued', label: 'events queued' },
  { name: 'processing', label: 'processing' },
  { name: 'failed', label: 'failed, last hour' },
  { name: 'rejected', label: 'rejected, last hour' },
  { name: 'refused', label: 'refused (429/503), last hour' },
  { name: 'failed-kept', label: 'failed, in the log' },
  { name: 'rejected-kept', label: 'rejected, in the log' },
] as const;
type Figure = (typeof FIGURES)[number]['name'];

export interface QueuePanel {
  element: HTMLElement;
  /** The queue now, and the last hour's history for the figures of the last hour. */
  update(state: QueueState, lastHour: History): void;
  showError(message: string): void;
}

/** `onChanged` runs after a pause or resume, so the caller can poll at once. */
export function createQueuePanel(onChanged: () => void): QueuePanel {
  const values = new Map(
    COUNTS.map((name) => [name, el('strong', { testid: `count-${name}` }, '…')]),
  );
  // From the event log and the per-minute counts: events, not jobs kept in Redis.
  const figures = new Map(
    FIGURES.map(({ name }) => [name, el('strong', { testid: `events-${name}` }, '…')]),
  );
  const state = el('span', { class: 'badge', testid: 'queue-state' }, '…');
  const workers = el('strong', { testid: 'queue-workers' }, '…');
  const oldest = el('strong', { testid: 'queue-oldest' }, '…');
  const updated = el('span', { class: 'muted', testid: 'queue-updated' });
  const error = el('p', { class: 'error', role: 'alert', testid: 'queue-error', hidden: true });
  const pause = el('button', { type: 'button', testid: 'pause-queue' }, 'Pause');
  const resume = el('button', { type: 'button', testid: 'resume-queue' }, 'Resume');

  const act = (action: () => Promise<PauseState>) => {
    pause.disabled = resume.disabled = true;
    error.hidden = true;
    action()
      .catch((failure: unknown) => {
        error.textContent = failure instanceof ApiError ? failure.message : String(failure);
        error.hidden = false;
      })
      .finally(onChanged);
  };
  pause.addEventListener('click', () => {
    // One click stops every worker of every account: asked first.
    const question =
      'Pause the queue? Every worker stops taking jobs (those in flight finish); the API ' +
      'still accepts events, which wait until it is resumed.';
    if (confirm(question)) act(adminApi.pause);
  });
  resume.addEventListener('click', () => act(adminApi.resume));

  const element = el(
    'section',
    { class: 'card queue', testid: 'queue-panel', 'aria-labelledby': 'queue-title' },
    el(
      'header',
      { class: 'card-header' },
      el('h2', { id: 'queue-title' }, 'Queue'),
      state,
      el('span', { class: 'spacer' }),
      pause,
      resume,
    ),
    el(
      'div',
      { class: 'tiles' },
      ...FIGURES.map(({ name, label }) =>
        el('div', { class: `tile tile-${name}` }, figures.get(name), el('span', {}, label)),
      ),
    ),
    el('h3', { class: 'muted' }, 'Jobs in Redis'),
    el(
      'div',
      { class: 'tiles tiles-small' },
      ...[...values].map(([name, value]) =>
        el('div', { class: `tile tile-${name}` }, value, el('span', {}, name)),
      ),
    ),
    el(
      'p',
      { class: 'facts' },
      el('span', {}, 'Workers ', workers),
      el('span', {}, 'Oldest waiting ', oldest),
      updated,
    ),
    error,
  );

  return {
    element,
    update(queue, history) {
      for (const [name, node] of values) node.textContent = String(queue.counts[name]);
      const lastHour = (name: 'failed' | 'rejected' | 'refused') =>
        history.points.reduce((sum, minute) => sum + minute[name], 0);
      const shown: Record<Figure, number> = {
        queued: queue.events.queued,
        processing: queue.events.processing,
        failed: lastHour('failed'),
        rejected: lastHour('rejected'),
        refused: lastHour('refused'),
        'failed-kept': queue.kept.failed.count,
        'rejected-kept': queue.kept.rejected.count,
      };
      const capped: Record<Figure, boolean> = {
        queued: queue.events.capped,
        processing: queue.events.capped,
        failed: false,
        rejected: false,
        refused: false,
        'failed-kept': !queue.kept.failed.exact,
        'rejected-kept': !queue.kept.rejected.exact,
      };
      for (const [name, node] of figures) {
        node.textContent = `${shown[name]}${capped[name] ? '+' : ''}`;
        node.parentElement?.classList.toggle('alert', name === 'failed' && shown[name] > 0);
      }
      fill(state, queue.paused ? 'paused' : 'running');
      state.className = `badge badge-${queue.paused ? 'paused' : 'running'}`;
      pause.disabled = queue.paused;
      resume.disabled = !queue.paused;
      // null when Redis will not list its clients: a 0 there would read as no worker running.
      workers.textContent = queue.workers === null ? 'unknown' : String(queue.workers);
      oldest.textContent = formatSeconds(queue.oldestWaitingAgeSeconds);
      updated.textContent = `updated ${formatClock(new Date())}`;
      error.hidden = true;
    },
    showError(message) {
      error.textContent = `Queue state unavailable: ${message}`;
      error.hidden = false;
    },
  };
}
