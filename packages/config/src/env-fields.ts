import { z } from 'zod';

type Bounds = { min?: number; max?: number };

const integerField = (bounds: Bounds) =>
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
    );

/** Environment values are strings; these turn them into typed settings with defaults. */
export const envInteger = (fallback: number, bounds: Bounds = {}) =>
  integerField(bounds).default(fallback);

/** An integer that may be left unset (undefined then), for a default that depends on others. */
export const envOptionalInteger = (bounds: Bounds = {}) => integerField(bounds).optional();

/** A comma-separated list, its entries trimmed and the empty ones dropped. */
export const commaList = (value: string): string[] =>
  value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

export const envBoolean = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
    .transform((value) => value === 'true' || value === '1')
    .default(fallback);

/** A retired setting: set, it fails the start with the name of its successor. */
export const replacedBy = (successor: string) =>
  z.never({ error: `is no longer read; see ${successor}, which replaced it` }).optional();

const urlField = (protocols: readonly string[]) =>
  z
    .string()
    .trim()
    .refine((value) => URL.canParse(value), 'must be a URL')
    // zod runs this check even after the one above failed: `new URL` would then throw.
    .refine(
      (value) => !URL.canParse(value) || protocols.includes(new URL(value).protocol),
      `must start with ${protocols.map((p) => `${p}//`).join(' or ')}`,
    );

export const envUrl = (fallback: string, protocols: readonly string[]) =>
  z.string().trim().default(fallback).pipe(urlField(protocols));

/** A URL that may be left unset (undefined then). */
export const envOptionalUrl = (protocols: readonly string[]) => urlField(protocols).optional();

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const envLogLevel = z.enum(LOG_LEVELS).default('info');

const DURATION_UNITS_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};
const DURATION = /^(\d+)(ms|s|m|h|d)?$/;

/**
 * A comma-separated list of durations, each a whole number with a unit (`ms`, `s`, `m`,
 * `h`, `d`; none: milliseconds), as milliseconds: `0,5s,5m` is [0, 5000, 300000].
 */
export const envDurations = (fallback: string, bounds: { minItems: number; maxItems: number }) =>
  z
    .string()
    .trim()
    .default(fallback)
    .transform((value) => value.split(',').map((item) => item.trim()))
    .refine(
      (items) => items.every((item) => DURATION.test(item)),
      'must be durations separated by commas, such as 0,5s,5m,2h',
    )
    .transform((items) =>
      items.map((item) => {
        const [, amount, unit] = DURATION.exec(item) ?? [];
        return Number(amount) * (DURATION_UNITS_MS[unit ?? 'ms'] ?? 1);
      }),
    )
    .refine(
      (durations) => durations.length >= bounds.minItems && durations.length <= bounds.maxItems,
      `must list ${bounds.minItems} to ${bounds.maxItems} durations`,
    );

/** One duration, as `envDurations` reads each (`90s`, `6h`), in milliseconds within bounds. */
export const envDuration = (fallback: string, bounds: { minMs: number; maxMs: number }) =>
  envDurations(fallback, { minItems: 1, maxItems: 1 })
    .transform((durations) => durations[0] ?? 0)
    .refine(
      (ms) => ms >= bounds.minMs && ms <= bounds.maxMs,
      `must be between ${bounds.minMs} ms and ${bounds.maxMs / 86_400_000} days`,
    );
