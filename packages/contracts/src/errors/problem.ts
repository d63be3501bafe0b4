import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';

const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

export const FieldProblemSchema = z.object({
  path: z
    .string()
    .meta({ description: 'Dot path of the field, such as `data.title` or `scopes.1`' }),
  message: z.string(),
});
export type FieldProblem = z.infer<typeof FieldProblemSchema>;

/**
 * The one error shape: RFC 9457 problem details, served as application/problem+json,
 * plus `message` (which clients of the original spec read), a stable `code` and the
 * request id to quote to an operator. Some codes add members of their own (RFC 9457
 * extensions), such as `eventId` on a rejected event.
 */
export const ProblemSchema = z
  .looseObject({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    message: z.string(),
    code: z.enum(ERROR_CODE_NAMES).meta({ description: 'Stable name of the error: branch on it' }),
    requestId: z
      .string()
      .meta({ description: 'Also in the x-request-id header; quote it to an operator' }),
    instance: z.string().optional().meta({ description: 'The receipt of a rejected event' }),
    eventId: z.uuid().optional().meta({ description: 'Id of the rejected event, for its receipt' }),
    errors: z.array(FieldProblemSchema).optional(),
    supportedEvents: z.array(z.string()).optional().meta({ description: 'With UNKNOWN_EVENT' }),
    requiredScopes: z.array(z.string()).optional().meta({ description: 'With INSUFFICIENT_SCOPE' }),
    currentVersion: z.int().min(1).optional().meta({
      description: "With VERSION_CONFLICT: the article's version when the event was applied",
    }),
  })
  .meta({ id: 'Problem' });
export type Problem = z.infer<typeof ProblemSchema>;

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
