import { z } from 'zod';

/** Environment values are strings; these turn them into typed settings with defaults. */
export const envInteger = (fallback: number, bounds: { min?: number; max?: number } = {}) =>
  z
    .string()
    .trim()
    .regex(/^-?\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(bounds.min ?? 0)
        .max(bounds.max ?? Number.MAX_SAFE_INTEGER),
    )
    .default(fallback);

export const envBoolean = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
    .transform((value) => value === 'true' || value === '1')
    .default(fallback);

export const envUrl = (fallback: string, protocols: readonly string[]) =>
  z
    .string()
    .trim()
    .default(fallback)
    .refine((value) => URL.canParse(value), 'must be a URL')
    // zod runs this check even after the one above failed: `new URL` would then throw.
    .refine(
      (value) => !URL.canParse(value) || protocols.includes(new URL(value).protocol),
      `must start with ${protocols.map((p) => `${p}//`).join(' or ')}`,
    );

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const envLogLevel = z.enum(LOG_LEVELS).default('info');
