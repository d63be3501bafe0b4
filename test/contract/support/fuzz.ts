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
import { appendFileSync } from 'node:fs';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { TestApi } from '../../support/test-api.js';
import { BATCH, batchesOf } from '../../properties/support/property-runs.js';
import { violationsOf, type Target } from './checks.js';
import type { Case } from './operation-requests.js';
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
  path: string;
}

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
  transport: Transport = injected,
): Promise<void> {
  const numRuns = Math.max(1, Math.ceil(runs / BATCH));
  const batches = batchesOf(cases);
  const seed =
    REPLAY_SEED === undefined ? Date.now() ^ (Math.random() * 2 ** 31) : Number(REPLAY_SEED);
  const test = expect.getState().currentTestName?.split(' > ').pop() ?? name;
  const replay = (path: string) =>
    `CONTRACT_SEED=${seed} CONTRACT_PATH=${path} npx vitest run <this file> -t '${test}'`;
  if (!SURVEY || REPLAY_PATH !== undefined) {
    const property = fc.asyncProperty(batches, async (batch) => {
      // Every request of the batch settles before the run ends (none leaks into the next
      // run, or into shrinking); then the first failure is thrown as it is.
      const results = await Promise.allSettled(batch.map((c) => check(context, c, transport)));
      for (const [i, result] of results.entries()) {
        if (result.status === 'rejected') throw result.reason;
        const c = batch[i] as Case;
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
    return;
  }

  const found = new Map<string, Found>();
  const answered = new Map<number, number>();
  let run = 0;
  const property = fc.asyncProperty(batches, async (batch) => {
    const path = String(run++);
    await Promise.all(
      batch.map(async (c) => {
        const { response, violations } = await check(context, c, transport);
        answered.set(response.statusCode, (answered.get(response.statusCode) ?? 0) + 1);
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
      }),
    );
  });
  await fc.assert(property, { numRuns, seed });
  // Which answers the requests got: a survey shows whether success paths were reached.
  const tally = [...answered].sort(([a], [b]) => a - b).map(([status, n]) => `${status} x${n}`);
  console.log(`${name}: ${tally.join(', ')}`);
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
        `${i + 1}. ${rule} [${count} of ${numRuns * BATCH} requests, answered ${[...statuses].sort().join(', ')}]\n${example}\nreplay: ${replay(path)}`,
    );
  throw new ContractViolation(
    `${name}: ${found.size} distinct contract failures (seed ${seed})\n\n${lines.join('\n\n')}`,
  );
}

/** A vitest timeout for `runs` requests of about `msPerRequest` each, shrinking included. */
export const timeoutFor = (runs: number, msPerRequest = 40): number =>
  120_000 + runs * msPerRequest;
