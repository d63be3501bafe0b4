// The fairness phase's rows in the run's table, each with the target the issue set.
import type { FairnessResult } from '../phases/fairness.js';
import { okShare } from './fairness-polling.js';
import { perSecond, ratio } from './format.js';

/** Targets of the fairness phase (issue "One account's load is never another account's outage"). */
export const FAIRNESS_TARGETS = {
  pollOkShare: 0.95,
  pollThroughput: 0.9,
  overloadGoodput: 0.9,
  overloadP99Factor: 3,
  refusalP99Ms: 5,
  quietP99Factor: 2,
  quietP99SlackMs: 50,
  noisyShare: 0.8,
} as const;

type Add = (figure: string, service: string, reference: string, r: string, target?: string) => void;

const ms = (n: number) => (Number.isFinite(n) ? `${n.toFixed(1)} ms` : 'n/a');
const verdict = (met: boolean) => (met ? 'ok' : 'MISSED');

export function fairnessRows(add: Add, fairness: FairnessResult): void {
  const t = FAIRNESS_TARGETS;
  for (const step of fairness.polling) {
    const share = okShare(step.service);
    add(
      `Fairness (a): receipt polling, ${step.connections} closed-loop connections: answered 200`,
      `${(100 * share).toFixed(1)}%`,
      '—',
      '—',
      `≥ ${100 * t.pollOkShare}% ${verdict(share >= t.pollOkShare)}`,
    );
    const r = step.service.okPerSecond / step.reference.okPerSecond;
    add(
      `Fairness (a): polls answered 200 a second, ${step.connections} connections`,
      perSecond(step.service.okPerSecond),
      `${perSecond(step.reference.okPerSecond)} admission off`,
      ratio(step.service.okPerSecond, step.reference.okPerSecond),
      `≥ ${t.pollThroughput} ${verdict(r >= t.pollThroughput)}`,
    );
  }
  const { overload, capacity } = fairness;
  const calm = overload.find((step) => step.factor === 0.5)?.load;
  for (const { factor, load } of overload.filter((step) => step.factor >= 1)) {
    const judged = factor >= 2;
    const goodput = load.goodput / capacity;
    add(
      `Fairness (b): goodput (202/s) publishing at ${factor}x capacity (${perSecond(load.rate)}, open loop)`,
      perSecond(load.goodput),
      `${perSecond(capacity)} capacity`,
      ratio(load.goodput, capacity),
      judged ? `≥ ${t.overloadGoodput} ${verdict(goodput >= t.overloadGoodput)}` : '—',
    );
    if (calm !== undefined) {
      const factorOfCalm = load.acceptedMs.p99 / calm.acceptedMs.p99;
      add(
        `Fairness (b): p99 of accepted calls at ${factor}x`,
        ms(load.acceptedMs.p99),
        `${ms(calm.acceptedMs.p99)} at 0.5x`,
        ratio(load.acceptedMs.p99, calm.acceptedMs.p99),
        judged ? `≤ ${t.overloadP99Factor} ${verdict(factorOfCalm <= t.overloadP99Factor)}` : '—',
      );
    }
    const allSaid = load.refusedWithRetryAfter === load.refused;
    add(
      `Fairness (b): refusals at ${factor}x: how many, p99 time to answer`,
      load.refused === 0 ? 'none' : `${load.refused}, ${ms(load.refusedMs.p99)}`,
      load.refused === 0 ? '—' : `${load.refusedWithRetryAfter} with Retry-After`,
      '—',
      judged && load.refused > 0
        ? `≤ ${t.refusalP99Ms} ms, all with Retry-After ${verdict(load.refusedMs.p99 <= t.refusalP99Ms && allSaid)}`
        : '—',
    );
  }
  const { neighbours: n } = fairness;
  const bound = t.quietP99Factor * n.idle.p99Ms + t.quietP99SlackMs;
  add(
    `Fairness (c): quiet account refused, beside a noisy one (backlog ${n.plan.backlog.toLocaleString('en-US')})`,
    String(n.contest.refused + n.idle.refused),
    '—',
    '—',
    `0 ${verdict(n.contest.refused + n.idle.refused === 0)}`,
  );
  add(
    'Fairness (c): quiet publish-to-applied p99 (Prefer: wait) while the backlog drains',
    ms(n.contest.p99Ms),
    `${ms(n.idle.p99Ms)} idle`,
    ratio(n.contest.p99Ms, n.idle.p99Ms),
    `≤ 2x idle + ${t.quietP99SlackMs} ms (${ms(bound)}) ${verdict(n.contest.p99Ms <= bound)}`,
  );
  const share = n.noisyContestPerSecond / n.noisyAlonePerSecond;
  add(
    'Fairness (c): noisy events applied a second while the quiet one publishes',
    perSecond(n.noisyContestPerSecond),
    `${perSecond(n.noisyAlonePerSecond)} alone`,
    ratio(n.noisyContestPerSecond, n.noisyAlonePerSecond),
    `≥ ${t.noisyShare} ${verdict(share >= t.noisyShare)}`,
  );
}
