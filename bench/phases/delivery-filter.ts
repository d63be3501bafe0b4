// What a filter costs the apply path (issue 46): every account gets one endpoint whose
// filter passes about 1 message in 100, and one worker with both queues (the service's
// default) drains a content backlog; then the same endpoints without their filter, for
// contrast. A message the filter refuses is decided in the apply transaction and written
// nowhere (no message, no delivery), so the filtered drain should keep close to the drain
// without endpoints. The drain rate drifts over a phase by more than the 5% at stake, so
// the filtered drain is measured in PAIRS rounds, each right after a drain without
// endpoints, and the figure is the median of the rounds' ratios. The filter is on the
// excerpt's first word (article-payloads.ts); the share it passed is read back from the
// database.
import type { BenchEnvironment } from '../bench-environment.js';
import { excerptStartFor } from '../support/article-payloads.js';
import {
  addEndpoints,
  deleteEndpoints,
  unfilterEndpoints,
  type BenchEndpoint,
  type EndpointFilter,
} from '../support/bench-endpoints.js';
import {
  deliveryCounts,
  messageShare,
  type DeliveryCounts,
  type MessageShare,
} from '../support/delivery-queries.js';
import type { WebhookReceiver } from '../support/webhook-receiver.js';
import { drainOnce, serviceWorkers, type DrainOptions, type DrainResult } from './drain.js';

/** The issue's case: a filter that passes 1 message in 100. */
const FILTER_SHARE = 0.01;
/** Rounds of a drain without endpoints, then one with the filtered endpoints. */
const PAIRS = 3;

/** A content drain with one endpoint per account; what it wrote, read once it ended. */
export interface EndpointDrain extends DrainResult {
  share: MessageShare;
  deliveries: DeliveryCounts;
}

export interface DeliveryFilterResult {
  filter: EndpointFilter;
  /** The share of the workload's messages the filter passes by construction. */
  expectedShare: number;
  /** Each round: the drain without endpoints, then the filtered one. */
  rounds: Array<{ without: DrainResult; filtered: EndpointDrain }>;
  /** The median round's. */
  filtered: EndpointDrain;
  /** The median of the rounds' filtered / without. */
  ratio: number;
  unfiltered: EndpointDrain;
}

async function drainWithEndpoint(
  env: BenchEnvironment,
  label: string,
  size: DrainOptions,
): Promise<EndpointDrain> {
  const drain = await drainOnce(env, 'service', label, serviceWorkers(env, 1), size);
  // The worker has stopped: no event is applied, and no message written, between the two.
  const share = await messageShare(env.db);
  const deliveries = await deliveryCounts(env.db);
  env.log(
    `      ${share.messages} messages for ${share.applied} events applied ` +
      `(${((100 * share.messages) / share.applied).toFixed(2)}%); deliveries: ` +
      `${deliveries.recorded} recorded, ${deliveries.finished} finished by the drain's end` +
      `${deliveries.failed > 0 ? `, ${deliveries.failed} failed` : ''}`,
  );
  return { ...drain, share, deliveries };
}

/** Adds its endpoints, and deletes them before it resolves (also after a failure). */
export async function measureDeliveryFilter(
  env: BenchEnvironment,
  receiver: WebhookReceiver,
  size: DrainOptions,
): Promise<DeliveryFilterResult> {
  const { start, share: expectedShare } = excerptStartFor(FILTER_SHARE);
  const filter = { field: 'data.article.excerpt', prefix: start };
  let endpoints: BenchEndpoint[] = [];
  const label = `1 endpoint filtered to ${(expectedShare * 100).toFixed(1)}%, 1 worker (both queues)`;
  try {
    const rounds: DeliveryFilterResult['rounds'] = [];
    for (let round = 1; round <= PAIRS; round += 1) {
      const without = await drainOnce(
        env,
        'service',
        `no endpoints, 1 worker (round ${round} of ${PAIRS})`,
        serviceWorkers(env, 1),
        size,
      );
      endpoints = await addEndpoints(env.api.baseUrl, env.accounts, 1, receiver.url, filter);
      rounds.push({ without, filtered: await drainWithEndpoint(env, label, size) });
      if (round === PAIRS) break;
      await env.reset();
      await deleteEndpoints(env.api.baseUrl, endpoints);
      endpoints = [];
    }
    const byRatio = [...rounds].sort(
      (a, b) => a.filtered.rate / a.without.rate - b.filtered.rate / b.without.rate,
    );
    const median = byRatio[Math.floor(byRatio.length / 2)]!;
    await unfilterEndpoints(env.api.baseUrl, endpoints);
    const unfiltered = await drainWithEndpoint(
      env,
      '1 endpoint unfiltered, 1 worker (both queues)',
      size,
    );
    // Emptied first, as deliveries.ts does before deleting its endpoints: the deletes then
    // have no deliveries to cascade to, and no job is left for an endpoint gone.
    await env.reset();
    await deleteEndpoints(env.api.baseUrl, endpoints);
    endpoints = [];
    return {
      filter,
      expectedShare,
      rounds,
      filtered: median.filtered,
      ratio: median.filtered.rate / median.without.rate,
      unfiltered,
    };
  } finally {
    // Only after a failure, which is the run's error: one here would hide it.
    if (endpoints.length > 0) await deleteEndpoints(env.api.baseUrl, endpoints).catch(() => {});
  }
}

const percent = (n: number) => `${(n * 100).toFixed(2)}%`;

export function deliveryFilterNotes({
  filter,
  expectedShare,
  rounds,
  filtered,
  unfiltered,
}: DeliveryFilterResult): string[] {
  const pairs = rounds
    .map(({ without, filtered: f }) => `${Math.round(f.rate)}/${Math.round(without.rate)}/s`)
    .join(', ');
  const heard = ({ share, deliveries }: EndpointDrain) =>
    `${share.messages} messages for ${share.applied} changes applied ` +
    `(${percent(share.messages / share.applied)}), ${deliveries.finished} of ` +
    `${deliveries.recorded} deliveries finished by the drain's end`;
  return [
    `Filter: each account had one endpoint with the filter ${JSON.stringify(filter)}, which ` +
      `${percent(expectedShare)} of the workload's excerpts match (each is one of the bench's ` +
      `paragraphs, each as often). Filtered: ${heard(filtered)}. The same endpoints ` +
      `unfiltered: ${heard(unfiltered)}. Filtered against the drain without endpoints ` +
      `right before it, by round: ${pairs}; the table shows the median round.`,
  ];
}
