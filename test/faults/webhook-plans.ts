// The webhook-receivers scenario's endpoints, one per receiver: how the receiver misbehaves
// over the run (its phases), and what its endpoint asks of deliveries: its types, a filter,
// a rate. The filter is kept here as data (slug prefixes), from which both the filter sent
// to the API and the checks' own test of it are made: the checks never ask the service
// what its filter passed.
import type { Behaviour } from './webhook-receivers.js';

/**
 * A receiver's behaviour from a point on: not before this share of the load, nor before
 * its endpoint's deliveries have recorded `afterAttempts` attempts (all failed, until it is
 * back) or the breaker has paused it (no attempt is made then), nor, with `afterPause`,
 * before the breaker has paused it; unless the load has been over for PHASE_BOUND_MS (in
 * webhook-scenario.ts). Load progress alone is a poor clock on a busy machine: workers
 * restarting after a kill may apply the events seconds late, and a receiver would then be
 * back before anything was sent to it.
 */
export interface Phase {
  behaviour: Behaviour;
  from: number;
  afterAttempts?: number;
  afterPause?: boolean;
}

export interface ReceiverPlan {
  name: string;
  /** The types its endpoint subscribes to; every type (endpoint.paused too) when absent. */
  events?: string[];
  /** Its filter: only messages about slugs `<tag>-<start>...`, for one of these starts. */
  slugStarts?: string[];
  /** Its rate: attempts a second and at once. */
  rate?: { perSecond: number; inFlight: number };
  /** The breaker must pause it: its receiver refuses far longer than the breaker's window. */
  expectPause?: boolean;
  /** The first from the start. */
  phases: Phase[];
}

// Worker 1 is SIGKILLed at 30% of the load, worker 2 at 65%, each once attempts are held
// open at the receivers (killWorkersInTurn): the first kill finds the slow receiver
// holding attempts until they time out, the second finds it (once its endpoint is resumed)
// and the limited one answering in time, so that attempts about to succeed are cut too.
// Every receiver that fails long enough is paused by the breaker; its owner resumes it once
// it is back (endpoint-owner.ts).
export const PLANS: ReceiverPlan[] = [
  // Down for the whole load, and until the breaker has paused its endpoint: its deliveries
  // pile up, held, until its owner resumes it.
  {
    name: 'down',
    expectPause: true,
    phases: [
      { behaviour: 'refuse', from: 0 },
      { behaviour: 'ok', from: 1, afterPause: true },
    ],
  },
  // Told only of the slugs its filter passes: s1, s3, ..., s9 and s10-s19, s30-s39, ...,
  // about half of the run's 40-80 slugs; of no pause (a notice has no slug).
  {
    name: 'failing',
    slugStarts: ['s1', 's3', 's5', 's7', 's9'],
    phases: [
      { behaviour: 'fail', from: 0 },
      { behaviour: 'ok', from: 0.45, afterAttempts: 30 },
    ],
  },
  // Told of fewer types, so that the subscription is checked too (no article.updated).
  {
    name: 'slow',
    events: ['article.created', 'article.deleted', 'highlight.created'],
    phases: [
      { behaviour: 'time-out', from: 0 },
      { behaviour: 'slow', from: 0.4, afterAttempts: 15 },
      { behaviour: 'ok', from: 1 },
    ],
  },
  // Never fails, but asks for at most 20 attempts a second and 4 at once: each answer takes
  // it 150 ms, so both limits bind. Told of every pause of the others.
  {
    name: 'limited',
    rate: { perSecond: 20, inFlight: 4 },
    phases: [{ behaviour: 'steady', from: 0 }],
  },
];

/** The slug prefixes an endpoint's filter passes, for the scenario's tag. */
export const slugPrefixesOf = (plan: ReceiverPlan, tag: string): string[] | undefined =>
  plan.slugStarts?.map((start) => `${tag}-${start}`);

/** The filter sent to the API: an article's slug, or a highlight's article's, with one of the prefixes. */
export const filterOf = (prefixes: string[]) => ({
  or: prefixes.flatMap((prefix) => [
    { field: 'data.article.slug', prefix },
    { field: 'data.highlight.article.slug', prefix },
  ]),
});

export const timelineText = ({ phases }: ReceiverPlan) =>
  phases
    .map(({ behaviour, from, afterAttempts, afterPause }) => {
      if (from === 0) return behaviour;
      const after = [
        ...(afterAttempts === undefined ? [] : [`${afterAttempts} attempts`]),
        ...(afterPause === true ? ['paused'] : []),
      ];
      return `${behaviour} at ${from * 100}%${after.length === 0 ? '' : ` and ${after.join(' or ')}`}`;
    })
    .join(', ');

/** What its endpoint asks for: its types, its filter, its rate. */
export const endpointText = ({ events, slugStarts, rate }: ReceiverPlan) =>
  [
    events === undefined ? 'every type' : events.join(', '),
    ...(slugStarts === undefined ? [] : [`slugs ${slugStarts.map((s) => `${s}*`).join(' ')}`]),
    ...(rate === undefined ? [] : [`${rate.perSecond}/s, ${rate.inFlight} at once`]),
  ].join('; ');
