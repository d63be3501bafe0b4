// Live queue state: events by status, lag, jobs per state, workers, the job next in line,
// pause and resume.
import type { BoundedCount, History, PauseState, QueueState } from '@ingest/contracts';
import { adminApi, ApiError } from './api';
import { el, fill } from './dom';
import { formatClock, formatLag, formatRoughly, formatSeconds } from './format';

const COUNTS = ['waiting', 'active', 'delayed', 'failed', 'paused', 'completed'] as const;

/**
 * The headline figures, events and not jobs, in three groups: from the event log now, from
 * the per-minute history over the last hour, and from the event log over all it keeps.
 */
const GROUPS = [
  {
    title: 'Events now',
    figures: [
      { name: 'queued', label: 'queued' },
      { name: 'processing', label: 'processing' },
      { name: 'lag-p50', label: 'lag, median' },
      { name: 'lag-max', label: 'lag, highest' },
    ],
  },
  {
    title: 'Last hour',
    figures: [
      { name: 'succeeded', label: 'succeeded (applied)' },
      { name: 'failed', label: 'failed' },
      { name: 'rejected', label: 'rejected (400)' },
      { name: 'refused', label: 'refused (429/503)' },
    ],
  },
  {
    title: 'In the log',
    figures: [
      { name: 'succeeded-kept', label: 'succeeded' },
      { name: 'failed-kept', label: 'failed' },
      { name: 'rejected-kept', label: 'rejected' },
    ],
  },
] as const;
type Figure = (typeof GROUPS)[number]['figures'][number]['name'];

/** A count the log keeps: exact, estimated past the bound, or the bound with a `+`. */
const keptText = ({
  count,
  exact,
  estimate = null,
}: BoundedCount & { estimate?: number | null }) =>
  exact ? String(count) : estimate === null ? `${count}+` : formatRoughly(estimate);

/** How the log's succeeded figure was had: counted, or estimated past the bound. */
function succeededNote({ count, exact, estimate }: QueueState['kept']['succeeded']): string {
  if (exact) return 'Counted';
  const bound = count.toLocaleString();
  return estimate === null
    ? `More than ${bound}: counted up to there`
    : `About ${estimate.toLocaleString()}, from the database's statistics (counted: more than ${bound})`;
}

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
  const figures = new Map<Figure, HTMLElement>();
  for (const group of GROUPS) {
    for (const { name } of group.figures)
      figures.set(name, el('strong', { testid: `events-${name}` }, '…'));
  }
  const lagNote = el('p', { class: 'muted note', testid: 'lag-note' });
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

  const group = ({ title, figures: names }: (typeof GROUPS)[number]) => [
    el('h3', { class: 'muted' }, title),
    el(
      'div',
      { class: 'tiles tiles-4' },
      ...names.map(({ name, label }) =>
        el('div', { class: `tile tile-${name}` }, figures.get(name), el('span', {}, label)),
      ),
    ),
  ];

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
    ...group(GROUPS[0]),
    lagNote,
    ...group(GROUPS[1]),
    ...group(GROUPS[2]),
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
      el(
        'span',
        {
          title:
            'How long the job next in line (the head of the fair order between accounts) has ' +
            "waited. A busy account's events may have waited longer: see Waiting, by account.",
        },
        'Next in line waited ',
        oldest,
      ),
      updated,
    ),
    error,
  );

  return {
    element,
    update(queue, history) {
      for (const [name, node] of values) node.textContent = String(queue.counts[name]);
      const lastHour = (name: 'applied' | 'failed' | 'rejected' | 'refused') =>
        String(history.points.reduce((sum, minute) => sum + minute[name], 0));
      const unfinished = (count: number) => `${count}${queue.events.capped ? '+' : ''}`;
      const shown: Record<Figure, string> = {
        queued: unfinished(queue.events.queued),
        processing: unfinished(queue.events.processing),
        'lag-p50': formatLag(queue.lag.p50Seconds),
        'lag-max': formatLag(queue.lag.maxSeconds),
        succeeded: lastHour('applied'),
        failed: lastHour('failed'),
        rejected: lastHour('rejected'),
        refused: lastHour('refused'),
        'succeeded-kept': keptText(queue.kept.succeeded),
        'failed-kept': keptText(queue.kept.failed),
        'rejected-kept': keptText(queue.kept.rejected),
      };
      for (const [name, node] of figures) node.textContent = shown[name];
      figures.get('failed')?.parentElement?.classList.toggle('alert', shown.failed !== '0');
      figures.get('succeeded-kept')?.setAttribute('title', succeededNote(queue.kept.succeeded));
      lagNote.textContent =
        queue.lag.events === 0
          ? 'Lag: no event accepted in the last hour has been applied yet.'
          : `Lag: accepted → applied, of the ${queue.lag.events} newest events accepted in the ` +
            'last hour and applied (replays left out). Those still waiting are not in it.';
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
