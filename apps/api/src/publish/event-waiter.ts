import { EVENT_FINISHED_CHANNEL } from '@ingest/event-log';
import type { Logger } from '@ingest/logger';
import pg from 'pg';

export interface EventWaiter {
  /**
   * Resolves when `check()` says the event is finished, or after `timeoutMs`. `check` is
   * run once the listener is in place and again on each notification about the event,
   * so a finish that lands between the two is never missed.
   */
  waitFor(eventId: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void>;
  close(): Promise<void>;
}

/**
 * Waits for events to finish by LISTENing on PostgreSQL: the worker sends a NOTIFY in
 * the transaction that finishes an event whose caller waits (`Prefer: wait`), so it
 * arrives exactly when the outcome is committed. One connection per API process; if it
 * drops, it is opened again and waiters fall back to their timeout meanwhile.
 */
export function createEventWaiter(databaseUrl: string, logger: Logger): EventWaiter {
  const waiters = new Map<string, Set<() => void>>();
  let client: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let closed = false;

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString: databaseUrl });
    next.on('notification', (message) => {
      for (const wake of waiters.get(message.payload ?? '') ?? []) wake();
    });
    next.on('error', (error) => {
      logger.warn({ err: error }, 'event waiter lost its database connection');
      if (client === next) client = undefined;
      next.end().catch(() => {});
    });
    await next.connect();
    await next.query(`LISTEN ${EVENT_FINISHED_CHANNEL}`);
    client = next;
  }

  async function ensureListening(): Promise<boolean> {
    if (client !== undefined) return true;
    if (closed) return false;
    connecting ??= connect().finally(() => {
      connecting = undefined;
    });
    try {
      await connecting;
      return true;
    } catch (error) {
      logger.warn(
        { err: error },
        'event waiter could not listen; waits fall back to their timeout',
      );
      return false;
    }
  }

  return {
    async waitFor(eventId, timeoutMs, check) {
      const listening = await ensureListening();
      // `signalled` keeps a notification that lands while check() runs from being lost.
      let signalled = false;
      let wake = (): void => {};
      const notify = (): void => {
        signalled = true;
        wake();
      };
      const set = waiters.get(eventId) ?? new Set();
      waiters.set(eventId, set);
      set.add(notify);
      const deadline = Date.now() + timeoutMs;
      try {
        while (!(await check())) {
          const remaining = deadline - Date.now();
          if (remaining <= 0) return;
          if (!signalled) {
            // Without a listener, look again now and then instead.
            const interval = listening ? remaining : Math.min(remaining, 250);
            let timer: NodeJS.Timeout | undefined;
            await new Promise<void>((resolve) => {
              wake = resolve;
              timer = setTimeout(resolve, interval);
            });
            clearTimeout(timer);
          }
          signalled = false;
        }
      } finally {
        set.delete(notify);
        if (set.size === 0) waiters.delete(eventId);
      }
    },
    async close() {
      closed = true;
      await client?.end().catch(() => {});
      client = undefined;
    },
  };
}
