import { ProblemSchema } from '@ingest/contracts';

/** Declares the error statuses a route can answer, each with the Problem schema. */
export function problemResponses<const Status extends number>(...statuses: Status[]) {
  return Object.fromEntries(
    statuses.map((status) => [status, ProblemSchema.describe(`Error (${status})`)]),
  ) as Record<Status, typeof ProblemSchema>;
}
