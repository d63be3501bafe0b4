export { createLogger, type Logger, type LoggerOptions } from './create-logger.js';
export { CREDENTIAL_QUERY_PARAMETERS, redactUrl } from './redact-url.js';
export { REDACTED_PATHS, REDACTION_CENSOR, URL_PATHS } from './redaction.js';
