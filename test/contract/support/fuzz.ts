// Runs a property over generated requests and holds every answer to the contract.
//
// Two ways to run, one suite:
// - by default, fast-check's: the first request that breaks the contract fails the test,
//   is shrunk to a small one, and is printed with its answer, the reasons, and the seed
//   and path that replay it (CONTRACT_SEED=<seed> CONTRACT_PATH=<path> replays it);
// - CONTRACT_SURVEY=1: every request runs, every distinct failure is collected (grouped by
//   operation and rule) with its first example and that example's seed and path, and the
//   test fails at the end listing them all: one run gives the whole list to fix. With
//   CONTRACT_SURVEY_OUT=<file>, each failure is also appended there as a JSON line.
// Either way, a status the run must see (an operation's success statuses, reach.ts) that
// never came fails the test too, after up to TOP_UP_REQUESTS more requests to find it.
import { appendFileSync } from 'node:fs';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { TestApi } from '../../support/test-api.js';
import { BATCH, batchesOf } from '../../properties/support/property-runs.js';
import { violationsOf, type Target } from './checks.js';
import type { Case } from './operation-requests.js';
import { Reach, TOP_UP_REQUESTS, unreachedMessage } from './reach.js';
import { describeResponse, send, type FuzzRequest } from './requests.js';
import type { ContractValidator, ObservedResponse, Violation } from './validator.js';

export { PROPERTY_RUNS } from '../../properties/support/property-runs.js';

export interface FuzzContext {
  api: TestApi;
  validator: ContractValidator;
}

/** How a case's request reaches the API: inject() by default. */
export type Transport = (context: FuzzContext, request: FuzzRequest) => Promise<ObservedResponse>;
const injected: Transport = (context, request) => send(context.api, request);

const SURVEY = process.env.CONTRACT_SURVEY === '1';
const SURVEY_OUT = process.env.CONTRACT_SURVEY_OUT;
const REPLAY_SEED = process.env.CONTRACT_SEED;
const REPLAY_PATH = process.env.CONTRACT_PATH;

/** What is wrong with one exchange, as text: request, answer, reasons. */
export function report(
  target: Target,
  c: Case,
  response: ObservedResponse,
  violations: Violation[],
) {
  const reasons = violations.map(({ rule, detail }) =>
    detail === undefined ? `  - ${rule}` : `  - ${rule} (${detail.slice(0, 300)})`,
  );
  const against = target.kind === 'operation' ? `${target.method} ${target.path}` : target.kind;
  return [
    `the answer breaks the contract (${against}):`,
    ...reasons,
    c.request.describe(),
    describeResponse(response),
  ].join('\n');
}

export class ContractViolation extends Error {}

async function check(
  context: FuzzContext,
  c: Case,
  transport: Transport,
): Promise<{ response: ObservedResponse; violations: Violation[] }> {
  const response = await transport(context, c.request);
  return { response, violations: violationsOf(context.validator, c.target, c.request, response) };
}

interface Found {
  count: number;
  statuses: Set<number>;
  example: string;
  /** fast-check's path of the run; none for a request sent after the run. */
  path?: string;
}

export interface FuzzOptions {
  transport?: Transport;
  /** Statuses the run must get (bodies included: a HEAD answer does not count). */
  mustAnswer?: readonly number[];
}

type Checked = Awaited<ReturnType<typeof check>>;

/**
 * More batches of `cases`, drawn from `seed` (a replay draws the same), sent one batch
 * at a time until `reach` misses nothing or TOP_UP_REQUESTS are sent. Returns how many.
 */
async function topUp(
  context: FuzzContext,
  cases: fc.Arbitrary<Case>,
  transport: Transport,
  seed: number,
  reach: Reach,
  onResult: (c: Case, result: Checked) => void,
): Promise<number> {
  if (reach.missing.length === 0) return 0;
  const extra = fc.sample(batchesOf(cases), {
    seed: seed ^ 0x7e57,
    numRuns: Math.ceil(TOP_UP_REQUESTS / BATCH),
  });
  let sent = 0;
  for (const batch of extra) {
    if (reach.missing.length === 0) break;
    const results = await Promise.all(batch.map((c) => check(context, c, transport)));
    results.forEach((result, i) => onResult(batch[i] as Case, result));
    sent += batch.length;
  }
  return sent;
}

const tallyOf = (answered: Map<number, number>): string =>
  [...answered]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status} x${n}`)
    .join(', ');

/**
 * Sends `runs` cases of `cases`, BATCH at a time (two test files share two cores; requests
 * in flight together keep PostgreSQL busy while this process works), and fails as the
 * header of this file says.
 */
export async function fuzz(
  name: string,
  context: FuzzContext,
  cases: fc.Arbitrary<Case>,
  runs: number,
  { transport = injected, mustAnswer = [] }: FuzzOptions = {},
): Promise<void> {
  const numRuns = Math.max(1, Math.ceil(runs / BATCH));
  const batches = batchesOf(cases);
  const reach = new Reach(mustAnswer);
  const answered = new Map<number, number>();
  const note = (c: Case, { response }: Checked) => {
    reach.record(c.request.method, response.statusCode);
    answered.set(response.statusCode, (answered.get(response.statusCode) ?? 0) + 1);
  };
  const seed =
    REPLAY_SEED === undefined ? Date.now() ^ (Math.random() * 2 ** 31) : Number(REPLAY_SEED);
  const test = expect.getState().currentTestName?.split(' > ').pop() ?? name;
  // Without a path, the whole test again: requests sent after the run have none.
  const replay = (path?: string) =>
    `CONTRACT_SEED=${seed}${path === undefined ? '' : ` CONTRACT_PATH=${path}`} npx vitest run <this file> -t '${test}'`;
  if (!SURVEY || REPLAY_PATH !== undefined) {
    const property = fc.asyncProperty(batches, async (batch) => {
      // Every request of the batch settles before the run ends (none leaks into the next
      // run, or into shrinking); then the first failure is thrown as it is.
      const results = await Promise.allSettled(batch.map((c) => check(context, c, transport)));
      for (const [i, result] of results.entries()) {
        if (result.status === 'rejected') throw result.reason;
        const c = batch[i] as Case;
        note(c, result.value);
        const { response, violations } = result.value;
        if (violations.length > 0) {
          const hint = `replay: ${replay('<the path fast-check prints>')}`;
          throw new ContractViolation(`${report(c.target, c, response, violations)}\n${hint}`);
        }
      }
    });
    await fc.assert(property, {
      numRuns,
      seed,
      ...(REPLAY_PATH === undefined ? {} : { path: REPLAY_PATH }),
    });
    // A replay of one path is about its failure, not about what the whole run reaches.
    if (REPLAY_PATH !== undefined) return;
    const extra = await topUp(context, cases, transport, seed, reach, (c, result) => {
      note(c, result);
      if (result.violations.length > 0) {
        const hint = `(sent after the run, to reach ${reach.missing.join(', ')}) replay: ${replay()}`;
        throw new ContractViolation(
          `${report(c.target, c, result.response, result.violations)}\n${hint}`,
        );
      }
    });
    if (reach.missing.length > 0) {
      const sent = numRuns * BATCH + extra;
      throw new ContractViolation(unreachedMessage(name, reach.missing, sent, tallyOf(answered)));
    }
    return;
  }

  const found = new Map<string, Found>();
  let run = 0;
  const record = (c: Case, result: Checked, path?: string) => {
    note(c, result);
    const { response, violations } = result;
    for (const violation of violations) {
      const key = violation.rule;
      const known = found.get(key);
      if (known !== undefined) {
        known.count += 1;
        known.statuses.add(response.statusCode);
      } else {
        const example = report(c.target, c, response, [violation]);
        found.set(key, { count: 1, statuses: new Set([response.statusCode]), example, path });
      }
    }
  };
  const property = fc.asyncProperty(batches, async (batch) => {
    const path = String(run++);
    await Promise.all(batch.map(async (c) => record(c, await check(context, c, transport), path)));
  });
  await fc.assert(property, { numRuns, seed });
  const extra = await topUp(context, cases, transport, seed, reach, (c, result) =>
    record(c, result),
  );
  const sent = numRuns * BATCH + extra;
  if (reach.missing.length > 0) {
    const rule = `never answered ${reach.missing.join(', ')}`;
    const example = unreachedMessage(name, reach.missing, sent, tallyOf(answered));
    found.set(rule, { count: 1, statuses: new Set(), example });
  }
  // Which answers the requests got: a survey shows whether success paths were reached.
  console.log(`${name}: ${tallyOf(answered)}`);
  if (SURVEY_OUT !== undefined) {
    appendFileSync(
      SURVEY_OUT,
      `${JSON.stringify({ name, answered: Object.fromEntries(answered) })}\n`,
    );
    for (const [rule, { count, statuses, example, path }] of found) {
      const line = { name, rule, count, statuses: [...statuses], seed, path, example };
      appendFileSync(SURVEY_OUT, `${JSON.stringify(line)}\n`);
    }
  }
  if (found.size === 0) return;
  const lines = [...found.entries()]
    .sort((a, b) => b[1].count - a[1].count)
    .map(
      ([rule, { count, statuses, example, path }], i) =>
        `${i + 1}. ${rule}${statuses.size === 0 ? '' : ` [${count} of ${sent} requests, answered ${[...statuses].sort().join(', ')}]`}\n${example}\nreplay: ${replay(path)}`,
    );
  throw new ContractViolation(
    `${name}: ${found.size} distinct contract failures (seed ${seed})\n\n${lines.join('\n\n')}`,
  );
}

/** A vitest timeout for `runs` requests of about `msPerRequest` each, shrinking included. */
export const timeoutFor = (runs: number, msPerRequest = 40): number =>
  120_000 + runs * msPerRequest;
