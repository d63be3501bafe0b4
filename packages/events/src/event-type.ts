import type { ContentLimits, EventResult, Result } from '@ingest/contracts';
import type { Prisma } from '@ingest/db';
import type { z } from 'zod';
import type { CategoryIds } from './categories.js';
import type { MessageType, OutboxEntry } from './messages.js';

/** The transaction an event type applies its changes in: the worker's, which also records the outcomes. */
export type Tx = Prisma.TransactionClient;

/** One event's change, validated: everything its event type needs to apply it but the transaction. */
export interface Change<Data> {
  eventId: string;
  accountId: string;
  data: Data;
  limits: ContentLimits;
}

/**
 * What one event's change did: what changed, or the AppError the event caused (not found,
 * slug taken, version conflict), having changed nothing. Such a failure fails the event at
 * once; anything thrown is taken as transient and retried.
 */
export type Outcome = Result<EventResult>;

/** Each change's outcome, by event id. */
export type Outcomes = Map<string, Outcome>;

/**
 * What changes are applied in: the transaction, the categories the changes name (resolved
 * before, in one statement), and the outbox, where each applied change (and no other) is
 * reported for outgoing webhooks.
 */
export interface ApplyScope {
  tx: Tx;
  categories: CategoryIds;
  outbox: OutboxEntry[];
}

/**
 * An event type: everything about one `event` a publisher may send, in one module. The
 * list in index.ts registers it; scopes, validation, the catalog, the OpenAPI document,
 * the dashboard and the client follow from that list.
 */
export interface EventType<Name extends string, Data, Scope extends string = string> {
  /** The `event` of a call. Persisted (event log, job names): never renamed. */
  name: Name;
  /** The narrow scope that allows this event alone; `content:create` allows every event. */
  scope: Scope;
  /** Starts at 1; grows by one with a change that can break a sender (see docs/extending.md). */
  version: number;
  description: string;
  /** Its `data`, under the deployment's content limits. */
  dataSchema(limits: ContentLimits): z.ZodType<Data>;
  /** A `data` that its schema accepts, as the OpenAPI document's example shows it. */
  example: Data;
  /**
   * The lines it stands in: what it is about within its account (a slug, a highlight).
   * Events sharing a key apply in the order they were accepted.
   */
  orderKeys(data: Data): string[];
  /** What an endpoint subscribed to it receives once a change of this type is applied. */
  message: MessageType;
  /**
   * Applies changes of this type inside the caller's transaction, in the order given, and
   * answers each. Consecutive changes of one line may come in one call: each sees the ones
   * before it. A failure the event causes is answered, having changed nothing and left the
   * transaction usable; a throw fails every change of the call.
   */
  apply(scope: ApplyScope, changes: Array<Change<Data>>): Promise<Outcomes>;
}
