export { createLogger, type Logger, type LoggerOptions } from './create-logger.js';
export { REDACTED_PATHS, REDACTION_CENSOR } from './redaction.js';
