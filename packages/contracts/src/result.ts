import type { AppError } from './errors/app-error.js';

/**
 * The outcome of one item of a batch, where the caller must handle both: the value, or the
 * AppError that item alone failed with. Everywhere else, domain code throws AppError.
 */
export type Result<T, E = AppError> = { ok: true; value: T } | { ok: false; error: E };

export const succeeded = <T>(value: T): Result<T, never> => ({ ok: true, value });
export const failed = <E = AppError>(error: E): Result<never, E> => ({ ok: false, error });
