/**
 * Why a database call failed, when the database (not the query) is the reason:
 * - `unreachable`: no connection (server down, restarting, refusing, out of connections);
 * - `timeout`: the statement or the wait for a connection took too long;
 * - `conflict`: a serialization failure or deadlock; trying again may succeed.
 * Prisma reports these several ways: its own codes, the pg adapter's error kinds,
 * PostgreSQL's SQLSTATEs and Node's socket errors, sometimes nested in `cause`.
 */
export type DatabaseFailure = 'unreachable' | 'timeout' | 'conflict';

const BY_CODE: Array<[RegExp, DatabaseFailure]> = [
  [
    /^(P1001|P1002|P1017|ECONNREFUSED|ECONNRESET|EPIPE|ENOTFOUND|EHOSTUNREACH|EAI_AGAIN|57P0[123]|08\w{3}|53300)$/,
    'unreachable',
  ],
  [/^(P1008|P2024|P2028|ETIMEDOUT|57014|55P03)$/, 'timeout'],
  [/^(P2034|40001|40P01)$/, 'conflict'],
];
const BY_ADAPTER_KIND: Record<string, DatabaseFailure> = {
  DatabaseNotReachable: 'unreachable',
  ConnectionClosed: 'unreachable',
  TooManyConnections: 'unreachable',
  TlsConnectionError: 'unreachable',
  SocketTimeout: 'timeout',
  TransactionWriteConflict: 'conflict',
};
const BY_MESSAGE: Array<[RegExp, DatabaseFailure]> = [
  [
    /Connection terminated|Client has encountered a connection error|Can't reach database server/i,
    'unreachable',
  ],
  [
    /timeout exceeded when trying to connect|Unable to start a transaction in the given time/i,
    'timeout',
  ],
];

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: { cause?: { kind?: unknown; originalCode?: unknown } } };
}

export function databaseFailureOf(error: unknown): DatabaseFailure | undefined {
  for (let current = error as ErrorLike | undefined, depth = 0; current && depth < 6; depth += 1) {
    const adapterCause = current.meta?.driverAdapterError?.cause;
    for (const code of [adapterCause?.originalCode, current.code]) {
      if (typeof code !== 'string') continue;
      for (const [pattern, failure] of BY_CODE) if (pattern.test(code)) return failure;
    }
    const kind = adapterCause?.kind;
    if (typeof kind === 'string' && BY_ADAPTER_KIND[kind] !== undefined)
      return BY_ADAPTER_KIND[kind];
    if (typeof current.message === 'string') {
      for (const [pattern, failure] of BY_MESSAGE)
        if (pattern.test(current.message)) return failure;
    }
    current = current.cause as ErrorLike | undefined;
  }
  return undefined;
}

/** The PostgreSQL SQLSTATE behind a failed Prisma call, when there is one. */
export function postgresCodeOf(error: unknown): string | undefined {
  const code = (error as ErrorLike | undefined)?.meta?.driverAdapterError?.cause?.originalCode;
  return typeof code === 'string' ? code : undefined;
}
