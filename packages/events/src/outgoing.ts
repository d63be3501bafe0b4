// The outgoing messages that follow from the list of event types: one type per event
// type, then `endpoint.paused` (the breaker's notice) and `ping`.
import { z } from 'zod';
import { nonEmpty } from './in-order.js';
import {
  ENDPOINT_PAUSED_MESSAGE,
  messageSchemaOf,
  PING_MESSAGE,
  type MessageType,
} from './messages.js';
import { EVENT_TYPE_LIST } from './registry.js';

/** The message types an endpoint may subscribe to: one per event type, and the breaker's. */
export const SUBSCRIBABLE_MESSAGE_TYPES: readonly string[] = [
  ...EVENT_TYPE_LIST.map((type) => type.message.type),
  ENDPOINT_PAUSED_MESSAGE.type,
];

/** Every message type, `ping` last, with the schema of its whole body. */
export const MESSAGE_TYPES = [
  ...EVENT_TYPE_LIST.map((type) => type.message),
  ENDPOINT_PAUSED_MESSAGE,
  PING_MESSAGE,
].map((message: MessageType) => ({ ...message, bodySchema: messageSchemaOf(message) }));

type Listed =
  | (typeof EVENT_TYPE_LIST)[number]['message']
  | typeof ENDPOINT_PAUSED_MESSAGE
  | typeof PING_MESSAGE;
type BodyOf<Message> =
  Message extends MessageType<infer Type, infer Data>
    ? { type: Type; timestamp: string; data: z.output<Data> }
    : never;
/** A message of any type, as a receiver parses it: `type` tells which `data` it has. */
export type OutgoingMessage = BodyOf<Listed>;

/**
 * The schema of every message. Built from the list, its inferred type cannot tie each
 * `type` to its `data`; OutgoingMessage states that, and the catalog's tests hold every
 * message type's body to its schema.
 */
export const OutgoingMessageSchema = z
  .discriminatedUnion('type', nonEmpty(MESSAGE_TYPES.map((message) => message.bodySchema)))
  .meta({ id: 'OutgoingMessage' }) as unknown as z.ZodType<OutgoingMessage>;
