import { pino, type DestinationStream, type Logger } from 'pino';
import { REDACTED_PATHS, REDACTION_CENSOR } from './redaction.js';

export type { Logger };

export interface LoggerOptions {
  level: string;
  /** Names the process in every line: `api`, `worker`. */
  name: string;
  /** Where lines go; standard output (asynchronously) by default. Tests pass a stream to read them back. */
  destination?: DestinationStream;
}

/** JSON lines with secrets redacted; pretty-printing is left to the reader (`pino-pretty`). */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      name: options.name,
      level: options.level,
      redact: { paths: REDACTED_PATHS, censor: REDACTION_CENSOR },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    // Asynchronous writes: a synchronous write per line was the largest item after the
    // database in the API's CPU profile under load. pino flushes what is buffered when
    // the process exits; only a SIGKILL can lose the last few lines.
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
