import { MESSAGE_TYPES, outgoingMessageSchemaId } from '@ingest/events';
// The outgoing messages as OpenAPI 3.1 `webhooks`: what an endpoint receives, one entry a
// message type. @fastify/swagger copies `webhooks` into the document as given, so each
// body refers to its message's component, which the zod registry contributes (the
// message schemas carry their ids in @ingest/contracts) like any schema a route uses.
// The message is a request the receiver takes, so its component is the parsed (`Input`)
// variant, as for every request body: open objects, since a field added to a message is
// no new version (the catalog's schemas are the same).

const signatureHeader = (name: string, description: string) => ({
  in: 'header',
  name,
  required: true,
  schema: { type: 'string' as const },
  description,
});

// Standard Webhooks (https://www.standardwebhooks.com), as deliveries send them.
const SIGNATURE_HEADERS = [
  signatureHeader(
    'webhook-id',
    'The message id (`msg_...`): the same on every attempt and resend of a message, so drop one seen before',
  ),
  signatureHeader(
    'webhook-timestamp',
    'Seconds since the epoch when this attempt was signed: refuse one far from your clock',
  ),
  signatureHeader(
    'webhook-signature',
    '`v1,<base64 HMAC-SHA256 of "id.timestamp.body" with the endpoint\'s secret>`; several, space-separated, while a rotation of the secret overlaps',
  ),
];

const RESPONSES = {
  '2XX': {
    description: "Received: the delivery succeeded, and the endpoint's failure streak ends",
  },
  '410': { description: 'Gone: the delivery fails and the endpoint is disabled' },
  default: {
    description:
      'Anything else, or no answer in time: the delivery is tried again on the retry schedule (about 27 hours), then fails',
  },
};

/** The document's `webhooks`, keyed by message type. */
export function outgoingWebhooks() {
  return Object.fromEntries(
    MESSAGE_TYPES.map(({ type, version, description }) => {
      const schemaId = outgoingMessageSchemaId(type);
      const operation = {
        operationId: `receive${schemaId}`,
        summary: description,
        description: `Version ${version} of \`${type}\` (see GET /api/event-types): POSTed to an endpoint, signed with its secret; delivered at least once, not in order.`,
        tags: ['endpoints'],
        // No credential of the receiver's: the signature headers authenticate the message.
        security: [],
        parameters: SIGNATURE_HEADERS,
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { $ref: `#/components/schemas/${schemaId}Input` } },
          },
        },
        responses: RESPONSES,
      };
      return [type, { post: operation }];
    }),
  );
}
