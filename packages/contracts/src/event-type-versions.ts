// The version and description of every event type the catalog (GET /api/event-types)
// lists. The schemas themselves are never copied here: the catalog converts the zod
// contracts the service validates with (event-catalog.ts).
import type { OutgoingMessageType } from './outgoing-messages.js';
import type { EventName } from './scopes.js';

export interface EventTypeNote {
  /** Starts at 1; only ever grows, by one. */
  version: number;
  description: string;
}

// The rule for `version`, kept beside the contracts so that bumping it is a decision made
// in review, not a side effect of editing a schema: a change to a type's schema that can
// break someone who relied on it bumps its version, in the same commit.
// - An incoming event: a `data` the old schema accepted may now be refused or mean
//   something else (a field removed, made required, retyped, a bound narrowed).
// - An outgoing message: a field is removed, renamed, retyped, made nullable, or changes
//   meaning.
// Adding an optional field to an event, or a field to a message (receivers ignore fields
// they do not know, as with Stripe's and Svix's events), is no bump. Neither is a
// deployment's content limits (CONTENT_*): the catalog shows the running ones.
// A new event name or message type must be added here (the types below insist), at 1.

export const INCOMING_EVENT_TYPES = {
  'article.create': {
    version: 1,
    description: 'Create an article; its slug is derived from the title unless given',
  },
  'article.update': {
    version: 1,
    description: 'Change fields of one of your articles, found by slug; null clears a field',
  },
  'article.delete': { version: 1, description: 'Delete one of your articles, found by slug' },
  'highlight.create': {
    version: 1,
    description: 'Create a video highlight, optionally linked to one of your articles',
  },
} as const satisfies Record<EventName, EventTypeNote>;

export const OUTGOING_MESSAGE_TYPES = {
  'article.created': { version: 1, description: 'An article was created: the article as stored' },
  'article.updated': {
    version: 1,
    description: 'An article was changed: the article right after this change',
  },
  'article.deleted': {
    version: 1,
    description: 'An article was deleted: the article as it was last',
  },
  'highlight.created': { version: 1, description: 'A highlight was created' },
  ping: {
    version: 1,
    description: 'A test message, sent only by POST /api/webhooks/endpoints/{id}/test',
  },
} as const satisfies Record<OutgoingMessageType, EventTypeNote>;
