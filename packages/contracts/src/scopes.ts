/** The events a publisher can send to POST /api/webhooks/content. Persisted: never rename. */
export const EVENT_NAMES = [
  'article.create',
  'article.update',
  'article.delete',
  'highlight.create',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

export const isEventName = (value: unknown): value is EventName =>
  typeof value === 'string' && (EVENT_NAMES as readonly string[]).includes(value);

/**
 * `content:create` is the spec's publishing scope and allows every event; each event
 * also has a scope of its own (`article:create` for `article.create`) for narrower keys;
 * `content:read` allows reading event receipts.
 */
export const SCOPES = [
  'content:create',
  'content:read',
  'article:create',
  'article:update',
  'article:delete',
  'highlight:create',
] as const;
export type Scope = (typeof SCOPES)[number];

export const PUBLISH_ALL_SCOPE = 'content:create' satisfies Scope;
export const READ_RECEIPTS_SCOPE = 'content:read' satisfies Scope;

/** The narrow scope that allows `event` alone. */
export const scopeOfEvent = (event: EventName): Scope => event.replace('.', ':') as Scope;

export const canPublish = (scopes: readonly string[], event: EventName): boolean =>
  scopes.includes(PUBLISH_ALL_SCOPE) || scopes.includes(scopeOfEvent(event));
