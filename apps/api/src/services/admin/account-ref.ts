/**
 * How operators name an account (ACCOUNT_ID_OR_HANDLE, checked by the route's schema):
 * an id as it is, a handle (no hyphen, so never a UUID) by its lower-cased form.
 */
export const accountByRef = (ref: string) =>
  ref.includes('-') ? { id: ref.toLowerCase() } : { handle: ref.toLowerCase() };
