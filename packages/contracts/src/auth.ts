import { z } from 'zod';
import {
  hasNoNul,
  isWellFormedText,
  NO_NUL_MESSAGE,
  trimmedText,
  WELL_FORMED_MESSAGE,
} from './safe-text.js';

/** A handle as it may be sent: any case, with surrounding whitespace that is trimmed. */
const HANDLE_AS_SENT = /^\s*[A-Za-z0-9_]{3,30}\s*$/;
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

// Stored lower-cased so that the unique index makes addresses unique ignoring case.
const EmailSchema = z
  .string()
  .trim()
  .max(254)
  .toLowerCase()
  .pipe(z.email({ error: 'must be a valid email address' }));

// Handles are case-insensitive: `Alice_1` is stored and shown as `alice_1`. Checked as
// sent, before the transform, so the published pattern is the one the server applies.
const HandleSchema = z
  .string()
  .regex(HANDLE_AS_SENT, 'must be 3-30 characters of a-z, A-Z, 0-9 and _')
  .transform((handle) => handle.trim().toLowerCase())
  .meta({
    description: 'Case-insensitive; surrounding whitespace is trimmed, stored lower-cased.',
  });

// Well-formed, because argon2 hashes the UTF-8 encoding, which turns every unpaired
// surrogate into U+FFFD: "\ud800x" and "\udbffx" would be the same password.
const PasswordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`)
  .refine(hasNoNul, NO_NUL_MESSAGE)
  .refine(isWellFormedText, WELL_FORMED_MESSAGE);

export const RegisterRequestSchema = z
  .strictObject({
    email: EmailSchema,
    password: PasswordSchema,
    handle: HandleSchema,
    name: trimmedText(1, 100),
  })
  .meta({
    id: 'RegisterRequest',
    examples: [
      {
        email: 'ada@example.com',
        password: 'correct horse battery staple',
        handle: 'ada_writes',
        name: 'Ada Lovelace',
      },
    ],
  });
export type RegisterRequest = z.infer<typeof RegisterRequestSchema>;

// Login does not re-check the password rules: a wrong password is INVALID_CREDENTIALS,
// whatever its shape, so the answer reveals nothing about the rules an account met.
export const LoginRequestSchema = z
  .strictObject({
    email: z
      .string()
      .trim()
      .toLowerCase()
      .min(1)
      .max(254)
      .refine(hasNoNul, NO_NUL_MESSAGE)
      .refine(isWellFormedText, WELL_FORMED_MESSAGE),
    password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
  })
  .meta({
    id: 'LoginRequest',
    examples: [{ email: 'ada@example.com', password: 'correct horse battery staple' }],
  });
export type LoginRequest = z.infer<typeof LoginRequestSchema>;

export const AccountSchema = z
  .object({
    id: z.uuid(),
    email: z.string(),
    handle: z.string(),
    name: z.string(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'Account' });
export type Account = z.infer<typeof AccountSchema>;

export const AuthResponseSchema = z
  .object({
    account: AccountSchema,
    token: z.string().meta({ description: 'A bearer JWT (HS256) for `Authorization: Bearer`' }),
  })
  .meta({ id: 'AuthResponse' });
export type AuthResponse = z.infer<typeof AuthResponseSchema>;
