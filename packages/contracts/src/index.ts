export { ERROR_CODES, isErrorCode, problemTypeOf, type ErrorCode } from './errors/error-codes.js';
export { AppError, isAppError, type AppErrorOptions } from './errors/app-error.js';
export {
  FieldProblemSchema,
  PROBLEM_CONTENT_TYPE,
  ProblemSchema,
  type FieldProblem,
  type Problem,
} from './errors/problem.js';
export {
  hasNoNul,
  isWellFormedText,
  NO_NUL_MESSAGE,
  storableText,
  trimmedText,
  WELL_FORMED_MESSAGE,
} from './safe-text.js';
export * from './auth.js';
export * from './api-keys.js';
export * from './content-limits.js';
export * from './batch.js';
export * from './receipts.js';
export * from './reads.js';
export { PageQueryFields, pageOf } from './pagination.js';
export * from './admin.js';
export * from './admin-accounts.js';
export * from './account-erasure.js';
export * from './admin-history.js';
export * from './admin-storage.js';
export * from './admin-deliveries.js';
export * from './webhook-endpoints.js';
export { failed, succeeded, type Result } from './result.js';
export { receiptPath } from './paths.js';
export { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from './durations.js';
