import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from './errors/error-codes.js';
import { FieldProblemSchema } from './errors/problem.js';

/** Events one batch may carry when CONTENT_BATCH_MAX_EVENTS is not set. */
export const DEFAULT_BATCH_MAX_EVENTS = 1_000;

const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

export const BatchItemErrorSchema = z
  .object({
    status: z.int().meta({ description: 'The HTTP status a single publish of it would get' }),
    code: z.enum(ERROR_CODE_NAMES),
    message: z.string(),
    errors: z.array(FieldProblemSchema).optional(),
    retryAfterSeconds: z.int().optional().meta({
      description: 'With RATE_LIMITED: when the item may be sent again',
    }),
  })
  .meta({ id: 'BatchItemError' });
export type BatchItemError = z.infer<typeof BatchItemErrorSchema>;

export const BatchItemResultSchema = z
  .union([
    z.object({
      id: z.uuid().meta({ description: "The event's id: its receipt" }),
      event: z.string(),
      status: z.literal('queued'),
      receivedAt: z.iso.datetime(),
      replayed: z.literal(true).optional().meta({
        description: 'Its idempotencyKey named an event already recorded: this is that event',
      }),
    }),
    z.object({
      id: z.uuid().optional().meta({
        description: 'The rejected event recorded for it, when it was recorded',
      }),
      error: BatchItemErrorSchema,
    }),
  ])
  .meta({ id: 'BatchItemResult' });
export type BatchItemResult = z.infer<typeof BatchItemResultSchema>;

export const BatchResultSchema = z
  .object({
    results: z.array(BatchItemResultSchema).meta({
      description: 'One per event sent, in the order sent',
    }),
  })
  .meta({ id: 'ContentBatchResult' });
export type BatchResult = z.infer<typeof BatchResultSchema>;
