import { z } from 'zod';
import { trimmedText } from './safe-text.js';

const YEAR_10000 = Date.UTC(10_000, 0, 1);

/** The request body of creating a key, for the scopes a key may hold (@ingest/events). */
export const apiKeyCreateRequestSchema = (scopes: readonly string[]) =>
  z
    .strictObject({
      name: trimmedText(1, 100),
      // Duplicates are folded rather than refused: asking twice for a scope is harmless.
      scopes: z
        .array(z.enum(scopes, { error: () => `must be one of: ${scopes.join(', ')}` }))
        .min(1, 'must name at least one scope')
        .max(scopes.length * 4)
        .transform((scopes) => [...new Set(scopes)]),
      expiresAt: z.iso
        .datetime({
          offset: true,
          error: 'must be an ISO 8601 date-time, such as 2027-01-31T00:00:00Z',
        })
        .refine((value) => Date.parse(value) > Date.now(), 'must be in the future')
        // A four-digit year with an offset can still fall in the year 10000 in UTC, which
        // the database stores but JavaScript cannot read back.
        .refine((value) => Date.parse(value) < YEAR_10000, 'must be before the year 10000 (UTC)')
        .optional(),
      requireSignature: z.boolean().optional().meta({
        description:
          'Refuse calls with this key that are not signed with its signing secret (default false)',
      }),
    })
    .meta({
      id: 'ApiKeyCreateRequest',
      examples: [{ name: 'CMS publisher', scopes: ['content:create'], requireSignature: false }],
    });
export type ApiKeyCreateRequest = z.infer<ReturnType<typeof apiKeyCreateRequestSchema>>;

const ApiKeyFields = {
  id: z.uuid(),
  name: z.string(),
  scopes: z.array(z.string()),
  prefix: z.string().meta({ description: 'The start of the key, not secret, to tell keys apart' }),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime().nullable(),
  requireSignature: z.boolean().meta({
    description: 'Whether calls with this key must carry a valid Standard Webhooks signature',
  }),
};

const SigningSecretSchema = z.string().meta({
  description:
    "The key's signing secret (Standard Webhooks: `whsec_` and base64), shown this once only",
});

export const ApiKeyCreatedSchema = z
  .object({
    ...ApiKeyFields,
    key: z.string().meta({ description: 'The secret key, shown this once only' }),
    signingSecret: SigningSecretSchema,
  })
  .meta({ id: 'ApiKeyCreated' });
export type ApiKeyCreated = z.infer<typeof ApiKeyCreatedSchema>;

export const ApiKeySummarySchema = z
  .object({
    ...ApiKeyFields,
    lastUsedAt: z.iso.datetime().nullable().meta({
      description: 'When the key last authenticated a request, to within a minute',
    }),
    revokedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'ApiKeySummary' });
export type ApiKeySummary = z.infer<typeof ApiKeySummarySchema>;

export const ApiKeyListSchema = z
  .object({ items: z.array(ApiKeySummarySchema) })
  .meta({ id: 'ApiKeyList' });
export type ApiKeyList = z.infer<typeof ApiKeyListSchema>;

export const ApiKeyIdParamsSchema = z.object({ id: z.uuid({ error: 'must be a UUID' }) });

export const ApiKeyUpdateRequestSchema = z
  .strictObject({
    requireSignature: z.boolean().meta({
      description: 'Refuse calls with this key that are not signed with its signing secret',
    }),
  })
  .meta({ id: 'ApiKeyUpdateRequest', examples: [{ requireSignature: true }] });
export type ApiKeyUpdateRequest = z.infer<typeof ApiKeyUpdateRequestSchema>;

export const SigningSecretRotatedSchema = z
  .object({
    signingSecret: SigningSecretSchema,
    previousSecretExpiresAt: z.iso.datetime().nullable().meta({
      description:
        'Until when the previous secret still verifies (null when the overlap is 0), so senders can switch without a refused call',
    }),
  })
  .meta({ id: 'SigningSecretRotated' });
export type SigningSecretRotated = z.infer<typeof SigningSecretRotatedSchema>;
