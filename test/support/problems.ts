import type { Problem } from '@ingest/contracts';
import { expect } from 'vitest';

interface InjectedResponse {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

/** Asserts the response is the documented problem document and returns it. */
export function expectProblem(response: InjectedResponse, status: number, code: string): Problem {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const problem = JSON.parse(response.body) as Problem;
  expect(problem).toMatchObject({
    type: expect.stringMatching(/^\/problems\/[a-z-]+$/),
    title: expect.any(String),
    status,
    code,
    detail: expect.any(String),
    message: problem.detail,
    requestId: response.headers['x-request-id'],
  });
  return problem;
}
