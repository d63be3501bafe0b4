import { ProblemSchema, type Problem } from '@ingest/contracts';
import { expect } from 'vitest';
import { POLLUTION_MARK } from './hostile-values.js';
import type { Outcome } from './oracles.js';

export interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

/** The answer, cut short, to quote in a failure: fast-check prints the input itself. */
const quote = (answer: Answer): string =>
  `${answer.statusCode} ${answer.body.slice(0, 600)}${answer.body.length > 600 ? '…' : ''}`;

/**
 * Asserts a 4xx is the documented problem document (README, "Errors"): served as
 * application/problem+json, with type, title, status, detail, message (= detail), code
 * and requestId (= the x-request-id header). Returns it.
 */
export function expectProblemDocument(answer: Answer): Problem {
  expect(answer.headers['content-type'], quote(answer)).toMatch(/^application\/problem\+json/);
  const problem = ProblemSchema.parse(JSON.parse(answer.body));
  expect(problem.type, quote(answer)).toMatch(/^\/problems\/[a-z-]+$/);
  expect(problem.status, quote(answer)).toBe(answer.statusCode);
  expect(problem.message, quote(answer)).toBe(problem.detail);
  expect(problem.requestId, quote(answer)).toBe(answer.headers['x-request-id']);
  expect(problem.requestId.length, quote(answer)).toBeGreaterThan(0);
  return problem;
}

/**
 * Asserts the answer is never a 5xx, is one of the `expected` outcomes, and, when it
 * is a 4xx, is the documented problem with the expected code. Returns the problem of a
 * 4xx, the matched outcome either way.
 */
export function expectOneOf(
  answer: Answer,
  expected: Outcome[],
): { outcome: Outcome; problem: Problem | undefined } {
  expect(answer.statusCode, quote(answer)).toBeLessThan(500);
  // The app runs in this process: a polluted prototype would show here too.
  expect(Object.prototype, 'Object.prototype was polluted').not.toHaveProperty(POLLUTION_MARK);
  expect(answer.statusCode, quote(answer)).toBeGreaterThanOrEqual(200);
  const problem = answer.statusCode >= 400 ? expectProblemDocument(answer) : undefined;
  const matched = expected.find(
    (candidate) =>
      candidate.status === answer.statusCode &&
      (candidate.code === undefined || candidate.code === problem?.code),
  );
  expect(
    matched,
    `expected one of ${JSON.stringify(expected)}, got ${quote(answer)}`,
  ).toBeDefined();
  const outcome = matched as Outcome;
  if (problem !== undefined) {
    // A refused event is recorded and names its receipt; refusals before that are not.
    if (outcome.recorded === true) {
      expect(problem.eventId, quote(answer)).toEqual(expect.any(String));
      expect(problem.instance, quote(answer)).toBe(`/api/webhooks/content/${problem.eventId}`);
    } else {
      expect(problem.eventId, quote(answer)).toBeUndefined();
    }
  }
  return { outcome, problem };
}
