import type { z } from 'zod';
import { articleCreate } from './article-create.js';
import { articleDelete } from './article-delete.js';
import { articleUpdate } from './article-update.js';
import type { EventType } from './event-type.js';
import { highlightCreate } from './highlight-create.js';
import { highlightDelete } from './highlight-delete.js';
import { highlightUpdate } from './highlight-update.js';

/**
 * Every event type, registered once: adding one is its module and a line here
 * (docs/extending.md). The order is the catalog's and the one a round applies types in.
 */
export const EVENT_TYPE_LIST = [
  articleCreate,
  articleUpdate,
  articleDelete,
  highlightCreate,
  highlightUpdate,
  highlightDelete,
] as const;

type Listed = (typeof EVENT_TYPE_LIST)[number];
export type EventName = Listed['name'];
export type EventData<Name extends EventName> = z.output<
  ReturnType<Extract<Listed, { name: Name }>['dataSchema']>
>;
type ScopeOf<Name extends EventName> = Extract<Listed, { name: Name }>['scope'];
export type EventTypes = {
  [Name in EventName]: EventType<Name, EventData<Name>, ScopeOf<Name>>;
};

/** The event types by name: `EVENT_TYPES[name]` is typed by the name, for routing without a cast. */
export const EVENT_TYPES: EventTypes = Object.fromEntries(
  EVENT_TYPE_LIST.map((type) => [type.name, type]),
) as { [Name in EventName]: Extract<Listed, { name: Name }> };

export const EVENT_NAMES: readonly EventName[] = EVENT_TYPE_LIST.map((type) => type.name);

export const isEventName = (value: unknown): value is EventName =>
  typeof value === 'string' && Object.hasOwn(EVENT_TYPES, value);
