import { problems } from '../../plugins/openapi-responses.js';

/** What every operator route's schema says: its tag, and the two ways an operator signs in. */
export const OPERATOR_SCHEMA = {
  tags: ['admin'],
  security: [{ bearerAuth: [] }, { adminSession: [] }] as Array<Record<string, string[]>>,
};

/**
 * 403: not an operator; or, with the session cookie, a state-changing request that did
 * not come from this site.
 */
export const OPERATOR_DENIED = problems(403);
