import type { ApiDeps } from '../deps.js';

type Routed = Pick<ApiDeps, 'db' | 'replica'>;

/**
 * Where a public read goes. A caller that sent credentials may be reading what it just
 * wrote, so it reads the primary; anyone else reads the replica while it keeps up.
 */
export function publicReader<Deps extends Routed>(deps: Deps, sentCredentials: boolean): Deps {
  return sentCredentials ? deps : { ...deps, db: deps.replica.reader() };
}

/**
 * Where the operators' searches, lists and storage view read: the replica while it keeps
 * up. Their details (one event, its attempts) and every change stay on the primary.
 */
export const operatorReader = <Deps extends Routed>(deps: Deps): Deps => ({
  ...deps,
  db: deps.replica.reader(),
});
