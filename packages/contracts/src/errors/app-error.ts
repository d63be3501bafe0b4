import { ERROR_CODES, type ErrorCode } from './error-codes.js';
import type { FieldProblem } from './problem.js';

export interface AppErrorOptions {
  /** Field problems, for VALIDATION_FAILED. */
  errors?: FieldProblem[];
  /** Response headers the error needs, such as Retry-After. */
  headers?: Record<string, string>;
  /** Extra members of the problem document (RFC 9457 allows extensions). */
  extensions?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * An error the domain expects and the API renders as a problem document. The message is
 * shown to clients, so it must never carry internals or secrets.
 */
export class AppError extends Error {
  readonly status: number;
  readonly errors: FieldProblem[] | undefined;
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, unknown>;

  constructor(
    readonly code: ErrorCode,
    message: string = ERROR_CODES[code].title,
    options: AppErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.status = ERROR_CODES[code].status;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
  }
}

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;
