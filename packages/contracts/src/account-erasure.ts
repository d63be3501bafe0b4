import { z } from 'zod';
import { PASSWORD_MAX_LENGTH } from './auth.js';

/**
 * The record of an account's erasure: what stays once the account is gone. It names the
 * account only while the erasure runs.
 */
export const AccountErasureSchema = z
  .object({
    id: z.uuid(),
    accountId: z.uuid().nullable().meta({
      description: 'The account being erased; null once the erasure has finished',
    }),
    requestedBy: z.enum(['operator', 'self']).meta({
      description: 'An operator, or the account itself with its password',
    }),
    operatorId: z.uuid().nullable().meta({
      description:
        "The operator who asked; null for the account itself, or once the operator's own account is erased",
    }),
    startedAt: z.iso.datetime(),
    finishedAt: z.iso.datetime().nullable().meta({ description: 'Null while it runs' }),
    counts: z.record(z.string(), z.int().min(0)).meta({
      description:
        'Rows deleted by table (and Redis keys, sorted-set members and jobs removed), so far',
    }),
    archives: z.record(z.string(), z.int().min(0)).meta({
      description: 'Lines removed from the event log archives, by archive file',
    }),
  })
  .meta({ id: 'AccountErasure' });
export type AccountErasure = z.infer<typeof AccountErasureSchema>;

export const ErasureIdParamsSchema = z.strictObject({ id: z.uuid() });

/** An account asks to be erased: its password again, as at login. */
export const EraseOwnAccountRequestSchema = z
  .strictObject({ password: z.string().min(1).max(PASSWORD_MAX_LENGTH) })
  .meta({ id: 'EraseOwnAccountRequest', examples: [{ password: 'correct horse battery staple' }] });
