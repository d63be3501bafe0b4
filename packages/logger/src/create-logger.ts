import { pino, type DestinationStream, type Logger } from 'pino';
import { redactUrl } from './redact-url.js';
import { REDACTED_PATHS, REDACTION_CENSOR, URL_PATHS } from './redaction.js';

export type { Logger };

export interface LoggerOptions {
  level: string;
  /** Names the process in every line: `api`, `worker`. */
  name: string;
  /** Where lines go; standard output (asynchronously) by default. Tests pass a stream to read them back. */
  destination?: DestinationStream;
  /** Fields added to every line, computed as it is written (the active trace's ids). */
  mixin?: () => Record<string, unknown>;
}

/**
 * What pino writes in place of a redacted value. A URL keeps all but its credentials'
 * values, so that a line still says which request it was about: the API's request
 * lines, and Fastify's own `req`, log it with its query string.
 */
function censor(value: unknown, path: string[]): unknown {
  if (path.at(-1) !== 'url') return REDACTION_CENSOR;
  if (typeof value === 'string') return redactUrl(value);
  return value instanceof URL ? redactUrl(value.href) : value;
}

/** JSON lines with secrets redacted; pretty-printing is left to the reader (`pino-pretty`). */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      name: options.name,
      level: options.level,
      redact: { paths: [...REDACTED_PATHS, ...URL_PATHS], censor },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      ...(options.mixin === undefined ? {} : { mixin: options.mixin }),
    },
    // Asynchronous writes, so that no request waits on a write to standard output. pino
    // flushes what is buffered when the process exits; only a SIGKILL loses the last lines.
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
