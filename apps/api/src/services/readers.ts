import type { FastifyRequest } from 'fastify';
import type { ApiDeps } from '../deps.js';

type Routed = Pick<ApiDeps, 'db' | 'replica'>;

/**
 * Where a public read goes. A caller that sends credentials (an API key or a bearer
 * token, checked or not: the read is public either way) may be reading what it just
 * wrote, so it reads the primary; anyone else reads the replica while it keeps up.
 */
export function publicReader<Deps extends Routed>(deps: Deps, request: FastifyRequest): Deps {
  const { headers } = request;
  const mayReadOwnWrites =
    headers['x-api-key'] !== undefined || headers.authorization !== undefined;
  return mayReadOwnWrites ? deps : { ...deps, db: deps.replica.reader() };
}

/**
 * Where the operators' searches, lists and storage view read: the replica while it keeps
 * up. Their details (one event, its attempts) and every change stay on the primary.
 */
export const operatorReader = <Deps extends Routed>(deps: Deps): Deps => ({
  ...deps,
  db: deps.replica.reader(),
});
