/**
 * The floor's two tables, in the bench database beside the service's. `floor_log`
 * mirrors the columns of the service's `webhook_logs` that the accept path writes;
 * `floor_article` is what a floor job inserts.
 */
export const FLOOR_TABLES_SQL = `
  CREATE TABLE IF NOT EXISTS floor_log (
    id uuid PRIMARY KEY,
    account_id uuid NOT NULL,
    event text NOT NULL,
    payload jsonb NOT NULL,
    request_id text NOT NULL,
    status text NOT NULL,
    received_at timestamptz(3) NOT NULL DEFAULT now(),
    finished_at timestamptz(3)
  );
  CREATE TABLE IF NOT EXISTS floor_article (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    log_id uuid NOT NULL,
    account_id uuid NOT NULL,
    title text,
    body jsonb,
    created_at timestamptz(3) NOT NULL DEFAULT now()
  );`;

/** Queue names of the floor, under its own Redis prefix. */
export const FLOOR_QUEUE = 'floor-events';
export const FLOOR_PREFIX = 'bench-floor:bull';
