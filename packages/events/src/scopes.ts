import { EVENT_TYPE_LIST, EVENT_TYPES, isEventName, type EventName } from './registry.js';

/** The specification's publishing scope: it allows every event. */
export const PUBLISH_ALL_SCOPE = 'content:create';
/** Allows reading event receipts. */
export const READ_RECEIPTS_SCOPE = 'content:read';

/** Every scope a key may hold: the two above, and each event type's own. */
export type Scope =
  typeof PUBLISH_ALL_SCOPE | typeof READ_RECEIPTS_SCOPE | (typeof EVENT_TYPE_LIST)[number]['scope'];
export const SCOPES: readonly Scope[] = [
  PUBLISH_ALL_SCOPE,
  READ_RECEIPTS_SCOPE,
  ...EVENT_TYPE_LIST.map((type) => type.scope),
];

/** The scopes that allow publishing `event`; every publishing scope for an unknown event. */
export function scopesToPublish(event: unknown): Scope[] {
  return isEventName(event)
    ? [PUBLISH_ALL_SCOPE, EVENT_TYPES[event].scope]
    : [PUBLISH_ALL_SCOPE, ...EVENT_TYPE_LIST.map((type) => type.scope)];
}

export const canPublish = (scopes: readonly string[], event: EventName): boolean =>
  scopesToPublish(event).some((scope) => scopes.includes(scope));
