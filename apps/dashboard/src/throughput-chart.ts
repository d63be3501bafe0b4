// Events accepted, applied and failed per minute over the last hour, drawn with uPlot.
import type { QueueState } from '@ingest/contracts';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { el } from './dom';
import { formatHourMinute } from './format';

type Throughput = QueueState['throughput'][number];

const HEIGHT = 220;

export interface ThroughputChart {
  element: HTMLElement;
  update(points: Throughput[]): void;
}

const MINUTE_SECONDS = 60;

/**
 * Each point is a minute that starts at its timestamp. One more point, a minute after the
 * last, closes that last minute: no bar there, and the applied line carried to it.
 */
function columns(points: Throughput[]): uPlot.AlignedData {
  const minutes = points.map((point) => Date.parse(point.minute) / 1000);
  const last = points.at(-1);
  if (last === undefined) return [[], [], [], []];
  return [
    [...minutes, (minutes.at(-1) ?? 0) + MINUTE_SECONDS],
    [...points.map((point) => point.accepted), null],
    [...points.map((point) => point.applied), last.applied],
    // Failures on a line of their own: the gap between accepted and applied is not lag.
    [...points.map((point) => point.failed), last.failed],
  ];
}

export function createThroughputChart(): ThroughputChart {
  const canvas = el('div', { class: 'chart', testid: 'throughput-chart' });
  const total = el('span', { class: 'muted', testid: 'throughput-total' });
  const element = el(
    'section',
    { class: 'card throughput', 'aria-labelledby': 'throughput-title' },
    el(
      'header',
      { class: 'card-header' },
      el('h2', { id: 'throughput-title' }, 'Throughput, last hour'),
      el('span', { class: 'spacer' }),
      total,
    ),
    canvas,
  );
  let plot: uPlot | undefined;
  new ResizeObserver(() => {
    if (plot !== undefined && canvas.clientWidth > 0)
      plot.setSize({ width: canvas.clientWidth, height: HEIGHT });
  }).observe(canvas);

  return {
    element,
    update(points) {
      const accepted = points.reduce((sum, point) => sum + point.accepted, 0);
      const applied = points.reduce((sum, point) => sum + point.applied, 0);
      const failed = points.reduce((sum, point) => sum + point.failed, 0);
      total.textContent = `${accepted} accepted · ${applied} applied · ${failed} failed`;
      if (plot !== undefined) return plot.setData(columns(points));
      plot = new uPlot(
        {
          width: Math.max(canvas.clientWidth, 300),
          height: HEIGHT,
          legend: { live: false },
          scales: {
            y: { range: (_plot, _min, max) => [0, Math.max(5, Math.ceil(max * 1.1))] },
          },
          axes: [
            {
              values: (_plot, splits) => splits.map((at) => formatHourMinute(new Date(at * 1000))),
            },
            { label: 'events / min', size: 50 },
          ],
          series: [
            {},
            {
              label: 'accepted',
              stroke: '#2563eb',
              fill: 'rgba(37, 99, 235, 0.35)',
              paths: uPlot.paths.bars?.({ align: 1, size: [0.8] }),
              points: { show: false },
            },
            {
              label: 'applied',
              stroke: '#16a34a',
              width: 2,
              paths: uPlot.paths.stepped?.({ align: 1 }),
              points: { show: false },
            },
            {
              label: 'failed',
              stroke: '#dc2626',
              width: 2,
              paths: uPlot.paths.stepped?.({ align: 1 }),
              points: { show: false },
            },
          ],
        },
        columns(points),
        canvas,
      );
    },
  };
}
