// The answer the README documents for a request, worked out from the contracts' own
// schemas: what the API answers must be one of these, whatever the input.
import { ApiKeyCreateRequestSchema, EVENT_TYPES, isEventName } from '@ingest/events';
import {
  LoginRequestSchema,
  RegisterRequestSchema,
  type ContentLimits,
  type ErrorCode,
} from '@ingest/contracts';
import type { Credentials } from './auth-arbitraries.js';
import { byteLength, isMediaTypeJson, parseLikeServer } from './json-text.js';

export interface Outcome {
  status: number;
  code?: ErrorCode;
  /** A refused content event is recorded, and its problem carries `eventId`. */
  recorded?: boolean;
}

export const outcome = (status: number, code?: ErrorCode, recorded?: boolean): Outcome => ({
  status,
  ...(code === undefined ? {} : { code }),
  ...(recorded === undefined ? {} : { recorded }),
});

const invalid = (recorded?: boolean) => outcome(400, 'VALIDATION_FAILED', recorded);

export interface Sent {
  text: string;
  contentType: string;
  bodyLimit: number;
}

/**
 * Fastify's answer before any route code runs: 415 for a media type it does not parse,
 * 413 over the route's body limit, 400 INVALID_JSON for a body it cannot parse; else
 * the parsed value.
 */
export function parsedOrRefused(sent: Sent): { value: unknown } | { refused: Outcome } {
  if (!isMediaTypeJson(sent.contentType)) {
    return { refused: outcome(415, 'UNSUPPORTED_MEDIA_TYPE') };
  }
  if (byteLength(sent.text) > sent.bodyLimit) return { refused: outcome(413, 'PAYLOAD_TOO_LARGE') };
  const parsed = parseLikeServer(sent.text);
  return parsed.ok ? { value: parsed.value } : { refused: outcome(400, 'INVALID_JSON') };
}

export function registerOutcomes(sent: Sent): Outcome[] {
  const parsed = parsedOrRefused(sent);
  if ('refused' in parsed) return [parsed.refused];
  if (!RegisterRequestSchema.safeParse(parsed.value).success) return [invalid()];
  return [outcome(201), outcome(409, 'EMAIL_TAKEN'), outcome(409, 'HANDLE_TAKEN')];
}

export function loginOutcomes(sent: Sent, accounts: Credentials[]): Outcome[] {
  const parsed = parsedOrRefused(sent);
  if ('refused' in parsed) return [parsed.refused];
  const login = LoginRequestSchema.safeParse(parsed.value);
  if (!login.success) return [invalid()];
  const { email, password } = login.data;
  const match = accounts.some(
    (account) => account.email === email && account.password === password,
  );
  return [match ? outcome(200) : outcome(401, 'INVALID_CREDENTIALS')];
}

export function apiKeyOutcomes(sent: Sent, authenticated: boolean): Outcome[] {
  // The bearer check is an onRequest hook: it answers before the body is read.
  if (!authenticated) return [outcome(401, 'UNAUTHENTICATED')];
  const parsed = parsedOrRefused(sent);
  if ('refused' in parsed) return [parsed.refused];
  return ApiKeyCreateRequestSchema.safeParse(parsed.value).success ? [outcome(201)] : [invalid()];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * POST /api/webhooks/content, in the README's order: key (401), then Fastify's parsing,
 * scope (403), envelope (400 UNKNOWN_EVENT or VALIDATION_FAILED), payload (400), 202.
 * `scopes` are the key's; `undefined` when the key is missing or forged.
 */
export function contentOutcomes(
  sent: Sent,
  scopes: readonly string[] | undefined,
  limits: ContentLimits,
): Outcome[] {
  if (scopes === undefined) return [outcome(401, 'UNAUTHENTICATED')];
  const parsed = parsedOrRefused(sent);
  if ('refused' in parsed) return [parsed.refused];
  const body = parsed.value;
  const event = isObject(body) ? body.event : undefined;
  if (
    isEventName(event) &&
    !scopes.includes('content:create') &&
    !scopes.includes(event.replace('.', ':'))
  ) {
    return [outcome(403, 'INSUFFICIENT_SCOPE')];
  }
  if (!isObject(body)) return [invalid(true)];
  if (typeof event === 'string' && !isEventName(event)) {
    return [outcome(400, 'UNKNOWN_EVENT', true)];
  }
  const onlyEnvelopeKeys = Object.keys(body).every((key) => key === 'event' || key === 'data');
  if (!onlyEnvelopeKeys || !isEventName(event) || !isObject(body.data)) return [invalid(true)];
  return EVENT_TYPES[event].dataSchema(limits).safeParse(body.data).success
    ? [outcome(202)]
    : [invalid(true)];
}
