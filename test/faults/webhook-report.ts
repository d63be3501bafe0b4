// The webhook-receivers scenario's line in the log and the results, and its table: what
// each receiver got, what its filter kept from it, how its rate held, and what the breaker
// did.
import type { DeliveriesReport, EndpointCounts } from './deliveries-check.js';
import type { EndpointRecord } from './endpoint-records.js';
import { markdownTable } from './markdown-table.js';
import { endpointText, PLANS, timelineText } from './webhook-plans.js';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function breakerText({ breaker, endpoints }: DeliveriesReport): string {
  const paused = breaker.pauses.map(
    (pause) =>
      `${pause.name} paused ${seconds(pause.tookMs)} after its first failed attempt` +
      (pause.seenMs === undefined ? '' : ` (seen failing ${seconds(pause.seenMs)} before)`) +
      ', ' +
      (pause.pausedForMs === undefined
        ? 'never resumed'
        : `resumed ${seconds(pause.pausedForMs)} later, then got ${pause.afterResume} requests (${pause.againAfterResume} again after a 2xx, ${pause.lockLostAfterResume} of them of a job whose lock was lost)`),
  );
  const never = endpoints
    .filter((counts) => !breaker.pauses.some((pause) => pause.name === counts.name))
    .map((counts) => counts.name);
  return `breaker (window ${seconds(breaker.windowMs)}): ${[
    ...paused,
    ...(never.length === 0 ? [] : [`${never.join(', ')} not paused`]),
  ].join(', ')}`;
}

export function summaryOf(
  report: DeliveriesReport,
  endpoints: EndpointRecord[],
  waitedMs: number,
  selfCheck: string,
): string {
  const sum = (count: (e: EndpointCounts) => number) =>
    report.endpoints.reduce((total, endpoint) => total + count(endpoint), 0);
  const countsOf = (name: string) => report.endpoints.find((counts) => counts.name === name);
  const filters = endpoints.flatMap((endpoint) => {
    const counts = countsOf(endpoint.name);
    if (endpoint.slugPrefixes === undefined || counts === undefined) return [];
    return [
      `filter: ${endpoint.name} to be told of ${counts.messages} messages, ${counts.filteredOut} changes refused`,
    ];
  });
  const rates = endpoints.flatMap(({ name, rate }) => {
    const counts = countsOf(name);
    if (rate === undefined || counts === undefined) return [];
    return [
      `rate: ${name} got at most ${counts.mostInOneSecond} requests in a second (${rate.perSecond} asked), ${counts.mostAtOnce} at once (${rate.inFlight} asked)`,
    ];
  });
  return [
    `webhooks: ${report.succeeded} of ${report.events} events succeeded, ${report.messages} messages (${report.notices} endpoint.paused), ${report.deliveries} deliveries`,
    `${sum((e) => e.requests)} requests received, ${sum((e) => e.duplicates)} duplicates (${sum((e) => e.afterSuccess)} after a 2xx)`,
    `${sum((e) => e.cutByDeath)} attempts cut by a dying worker`,
    `${sum((e) => e.failedAttempts)} attempts failed before success`,
    ...filters,
    ...rates,
    breakerText(report),
    `order checked over ${sum((e) => e.lines)} slug lines`,
    `last delivery ${seconds(waitedMs)} after the events drained`,
    `self-check: ${selfCheck}`,
  ].join('; ');
}

export function detailsOf(report: DeliveriesReport): string[] {
  const headers = [
    'receiver',
    'behaviour',
    'endpoint',
    'messages',
    'filtered out',
    'requests',
    'duplicates',
    'after a 2xx',
    'cut by a death',
    'attempts',
    'failed before success',
    'most attempts',
    'most in 1 s / at once',
    'paused',
  ];
  const rows = report.endpoints.map((counts) => {
    const plan = PLANS.find((candidate) => candidate.name === counts.name);
    const pauses = report.breaker.pauses
      .filter((pause) => pause.name === counts.name)
      .map(
        (pause) =>
          `${seconds(pause.tookMs)} in, for ${pause.pausedForMs === undefined ? 'ever' : seconds(pause.pausedForMs)}`,
      );
    return [
      counts.name,
      plan === undefined ? '?' : timelineText(plan),
      plan === undefined ? '?' : endpointText(plan),
      counts.messages,
      counts.filteredOut,
      counts.requests,
      counts.duplicates,
      counts.afterSuccess,
      counts.cutByDeath,
      counts.attempts,
      counts.failedAttempts,
      counts.maxAttempts,
      `${counts.mostInOneSecond} / ${counts.mostAtOnce}`,
      pauses.length === 0 ? 'no' : pauses.join('; '),
    ].map(String);
  });
  return markdownTable(headers, rows).split('\n');
}
