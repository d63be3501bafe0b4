import type pg from 'pg';

/** A query given as an object of options, `{ name, text, values }`, rather than as text. */
function isNamedQueryConfig(config: unknown): config is pg.QueryConfig & { name: string } {
  return (
    typeof config === 'object' &&
    config !== null &&
    typeof (config as { submit?: unknown }).submit !== 'function' &&
    (config as { name?: unknown }).name !== undefined
  );
}

/**
 * Makes a node-postgres client send every statement unnamed: a statement's `name` is
 * dropped, so it is parsed and planned with each execution instead of once per
 * connection. For a pool behind a transaction-mode pooler, where the server connection
 * that prepared a named statement is rarely the one that runs it next.
 */
export function sendStatementsUnnamed(client: pg.Client): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const unnamed = (config: unknown, ...rest: unknown[]) =>
    query(isNamedQueryConfig(config) ? { ...config, name: undefined } : config, ...rest);
  client.query = unnamed as typeof client.query;
}
