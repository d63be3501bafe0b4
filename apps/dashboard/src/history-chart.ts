// The history of the service, or of one account: events per minute (accepted, applied,
// failed, rejected, refused) and the backlog (depth, oldest waiting), over the last hour
// or the last day, drawn with uPlot.
import type { History, HistoryWindow } from '@ingest/contracts';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { adminApi, ApiError } from './api';
import { el } from './dom';
import { formatHourMinute } from './format';

const HEIGHT = 180;
/** A day's history is read at most this often: it is 1,440 minutes to sum. */
const DAY_REFRESH_MS = 30_000;

type Point = History['points'][number];

export interface HistoryChart {
  element: HTMLElement;
  /** Reads the history again (the last day's no more than every DAY_REFRESH_MS). */
  refresh(): Promise<void>;
}

const LINES = [
  { name: 'applied', stroke: '#16a34a' },
  // Failures on a line of their own: the gap between accepted and applied is not lag.
  { name: 'failed', stroke: '#dc2626' },
  { name: 'rejected', stroke: '#9333ea' },
  { name: 'refused', stroke: '#d97706' },
] as const;

/**
 * Columns of one chart: each bucket starts at its timestamp, and one more point, a bucket
 * after the last, closes that last bucket (no bar there, each line carried to it).
 */
function columns(history: History, series: ReadonlyArray<keyof Point>, bars: number) {
  const starts = history.points.map((point) => Date.parse(point.start) / 1000);
  const last = history.points.at(-1);
  const closed = [...starts, (starts.at(-1) ?? 0) + history.bucketSeconds];
  return [
    last === undefined ? [] : closed,
    ...series.map((name, index) => [
      ...history.points.map((point) => Number(point[name])),
      index < bars || last === undefined ? null : Number(last[name]),
    ]),
  ] as uPlot.AlignedData;
}

// A series given `scale: undefined` is on no scale at all: the key is left out instead.
const stepped = (stroke: string, label: string, scale?: string): uPlot.Series => ({
  label,
  stroke,
  width: 2,
  ...(scale === undefined ? {} : { scale }),
  paths: uPlot.paths.stepped?.({ align: 1 }),
  points: { show: false },
});

const timeAxis = (): uPlot.Axis => ({
  values: (_plot, splits) => splits.map((at) => formatHourMinute(new Date(at * 1000))),
});
const yFromZero = (_plot: uPlot, _min: number, max: number): uPlot.Range.MinMax => [
  0,
  Math.max(5, Math.ceil(max * 1.1)),
];

function eventsChart(target: HTMLElement, history: History): uPlot {
  return new uPlot(
    {
      width: Math.max(target.clientWidth, 300),
      height: HEIGHT,
      legend: { live: true },
      scales: { y: { range: yFromZero } },
      axes: [timeAxis(), { label: 'events / bucket', size: 50 }],
      series: [
        {},
        {
          label: 'accepted',
          stroke: '#2563eb',
          fill: 'rgba(37, 99, 235, 0.35)',
          paths: uPlot.paths.bars?.({ align: 1, size: [0.8] }),
          points: { show: false },
        },
        ...LINES.map((line) => stepped(line.stroke, line.name)),
      ],
    },
    columns(history, ['accepted', ...LINES.map((line) => line.name)], 1),
    target,
  );
}

function backlogChart(target: HTMLElement, history: History): uPlot {
  return new uPlot(
    {
      width: Math.max(target.clientWidth, 300),
      height: HEIGHT,
      legend: { live: true },
      scales: { y: { range: yFromZero }, s: { range: yFromZero } },
      axes: [
        timeAxis(),
        { label: 'unfinished events', size: 50 },
        { label: 'oldest waiting (s)', scale: 's', side: 1, size: 50, grid: { show: false } },
      ],
      series: [
        {},
        stepped('#0f766e', 'depth (highest)'),
        stepped('#64748b', 'oldest waiting (highest)', 's'),
      ],
    },
    columns(history, ['depth', 'oldestWaitingSeconds'], 0),
    target,
  );
}

/** The history card: `account` (a handle or an id) for one account's, none for the service's. */
export function createHistoryChart(account?: string): HistoryChart {
  let window: HistoryWindow = 'hour';
  let readAt = 0;
  let plots: uPlot[] = [];
  const events = el('div', { class: 'chart', testid: 'history-events' });
  const backlog = el('div', { class: 'chart', testid: 'history-backlog' });
  const totals = el('span', { class: 'muted', testid: 'history-totals' });
  const error = el('p', { class: 'error', hidden: true });
  const toggles = (['hour', 'day'] as const).map((choice) =>
    el(
      'button',
      { type: 'button', testid: `history-${choice}`, 'aria-pressed': String(choice === window) },
      choice === 'hour' ? 'Last hour' : 'Last day',
    ),
  );
  const title = el('h2', {}, account === undefined ? 'History' : 'History of this account');
  const element = el(
    'section',
    { class: 'card throughput', testid: 'history' },
    el('header', { class: 'card-header' }, title, el('span', { class: 'spacer' }), ...toggles),
    totals,
    events,
    backlog,
    error,
  );
  new ResizeObserver(() => {
    if (events.clientWidth === 0) return;
    for (const plot of plots) plot.setSize({ width: events.clientWidth, height: HEIGHT });
  }).observe(events);

  const show = (history: History) => {
    const sum = (name: keyof Point) =>
      history.points.reduce((total, point) => total + Number(point[name]), 0);
    const peak = Math.max(0, ...history.points.map((point) => point.depth));
    const reasons = Object.entries(history.refusedByReason)
      .filter(([, count]) => count > 0)
      .map(([reason, count]) => `${reason.replace('_', ' ')} ${count}`);
    const refused = `${sum('refused')} refused${reasons.length === 0 ? '' : ` (${reasons.join(', ')})`}`;
    totals.textContent = `${sum('accepted')} accepted · ${sum('applied')} applied · ${sum('failed')} failed · ${sum('rejected')} rejected · ${refused} · backlog peak ${peak}`;
    // Drawn anew each time: setData keeps the first scales, and a backlog that grows
    // past them would be cut at the top.
    for (const plot of plots) plot.destroy();
    plots = [eventsChart(events, history), backlogChart(backlog, history)];
  };

  const refresh = async (force = false) => {
    if (!force && window === 'day' && Date.now() - readAt < DAY_REFRESH_MS) return;
    try {
      const history = await adminApi.history(window, account);
      readAt = Date.now();
      show(history);
      error.hidden = true;
    } catch (failure) {
      error.textContent = `History unavailable: ${failure instanceof ApiError ? failure.message : String(failure)}`;
      error.hidden = false;
    }
  };
  toggles.forEach((button, index) => {
    button.addEventListener('click', () => {
      window = index === 0 ? 'hour' : 'day';
      toggles.forEach((other) => other.setAttribute('aria-pressed', String(other === button)));
      void refresh(true);
    });
  });
  return { element, refresh: () => refresh() };
}
