// Captures the SQL an event-log function would send, instead of running it, so that a
// test can run it under EXPLAIN itself.
import { Prisma } from '@ingest/db';
import type { Tx } from '@ingest/event-log';
import type pg from 'pg';

export interface Statement {
  text: string;
  values: unknown[];
}

/** What a function of the event log sends through `pg`; answers `answer` as its one row. */
export function pgCapture(sent: Statement[], answer?: Record<string, unknown>) {
  return {
    query: async (config: Statement) => {
      sent.push({ text: config.text, values: config.values });
      return { rows: answer === undefined ? [] : [answer] };
    },
  } as unknown as pg.Client;
}

/** What a function of the event log sends through a transaction (Prisma's `$queryRaw`). */
export function prismaCapture(sent: Statement[], answer: Record<string, unknown>): Tx {
  return {
    $queryRaw: async (strings: TemplateStringsArray, ...values: unknown[]) => {
      const sql = Prisma.sql(strings, ...values);
      sent.push({ text: sql.text, values: sql.values });
      return [answer];
    },
  } as unknown as Tx;
}
