// Who is calling, and what they may do: the policy that plugins (which establish the
// caller) and services (which act for it) share. Nothing here knows about HTTP.
import { AppError } from '@ingest/contracts';

export type Principal =
  | { via: 'token'; accountId: string }
  | { via: 'apiKey'; accountId: string; apiKeyId: string; scopes: string[] };

export type KeyPrincipal = Extract<Principal, { via: 'apiKey' }>;

/** The role that makes an account an operator (admin routes, the dashboard). */
export const ADMIN_ROLE = 'admin';

/**
 * Throws 403 INSUFFICIENT_SCOPE unless the caller holds one of `scopes`. A bearer token
 * is the account itself and holds every scope.
 */
export function requireScope(
  principal: Principal,
  scopes: readonly string[],
  needed = scopes[0],
): void {
  if (principal.via === 'token') return;
  if (scopes.some((scope) => principal.scopes.includes(scope))) return;
  throw new AppError('INSUFFICIENT_SCOPE', `This needs an API key with the scope ${needed}`, {
    extensions: { requiredScopes: [...scopes] },
  });
}
