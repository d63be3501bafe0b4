// Receivers of outgoing webhooks, on loopback in the fault harness's own process: one
// HTTP server per endpoint, on a port of its own, so that one can be down (connection
// refused) while the others answer. Each keeps every request it got, and how (and whether)
// it answered: the checks judge deliveries by what receivers saw, not by what the worker
// recorded.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { freePort } from '@ingest/test-harness';

/** How long a delivery attempt may take (WEBHOOK_TIMEOUT_MS of the run's workers). */
export const DELIVERY_TIMEOUT_MS = 1_000;
/** The breaker's window (WEBHOOK_BREAKER_AFTER): far shorter than the down receiver's outage. */
export const BREAKER_AFTER_MS = 4_000;

/**
 * What the run's API and workers need to deliver to these receivers. The breaker pauses an
 * endpoint whose every attempt has failed for BREAKER_AFTER_MS, by when a delivery has made
 * at most 6 of the schedule's 17 attempts: none runs out before its endpoint is paused, and
 * a paused endpoint's deliveries wait, held, using none. The schedule spans about 60 s,
 * longer than any receiver is left down (the load, then at most 20 s: see
 * webhook-scenario.ts), and its waits stop growing at 5 s, so that once every receiver is
 * back the last deliveries succeed within seconds. Scenarios without endpoints deliver
 * nothing.
 */
export const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
  WEBHOOK_RETRY_SCHEDULE: '0,250ms,500ms,1s,2s,3s,4s,5s,5s,5s,5s,5s,5s,5s,5s,5s,5s',
  WEBHOOK_TIMEOUT_MS: String(DELIVERY_TIMEOUT_MS),
  WEBHOOK_BREAKER_AFTER: `${BREAKER_AFTER_MS}ms`,
};

/**
 * - `refuse`: nothing listens on the port (connection refused);
 * - `time-out`: holds the answer until the worker gives up (WEBHOOK_TIMEOUT_MS);
 * - `slow`: answers 200, late but in time;
 * - `steady`: answers 200 after a little work, so that attempts overlap;
 * - `fail`: answers 500 at once;
 * - `ok`: answers 200 at once.
 */
export type Behaviour = 'refuse' | 'time-out' | 'slow' | 'steady' | 'fail' | 'ok';

/** Whether a receiver behaving so takes what it is sent (its owner may resume its endpoint). */
export const takesDeliveries = (behaviour: Behaviour) =>
  behaviour === 'ok' || behaviour === 'slow' || behaviour === 'steady';

/** How long each behaviour keeps a request before answering it; at once when absent. */
const ANSWER_DELAY_MS: Partial<Record<Behaviour, number>> = {
  // Well past the worker's timeout: by then it has closed the connection.
  'time-out': DELIVERY_TIMEOUT_MS + 1_000,
  slow: DELIVERY_TIMEOUT_MS * 0.4,
  steady: 150,
};

export interface ReceivedRequest {
  /** The `webhook-id` header: `msg_<message id>`, the same on every attempt of a message. */
  webhookId: string;
  headers: Record<string, string>;
  body: string;
  /** When its body had arrived (Date.now()). */
  at: number;
  /** The status it was answered with; `cut` when the sender closed the connection first. */
  answer?: number | 'cut';
  /** When it was answered, or cut. */
  closedAt?: number;
}

export interface Receiver {
  name: string;
  url: string;
  behaviour(): Behaviour;
  /** Starts or stops listening as `behaviour` needs (after `refuse`, on the same port). */
  become(behaviour: Behaviour): Promise<void>;
  /** Every request whose body arrived, in order. */
  requests: ReceivedRequest[];
  /** Requests received and not yet answered nor cut. */
  open(): number;
  close(): Promise<void>;
}

const headersOf = (request: IncomingMessage): Record<string, string> =>
  Object.fromEntries(
    Object.entries(request.headers).flatMap(([name, value]) =>
      typeof value === 'string' ? [[name, value]] : [],
    ),
  );

export async function startReceiver(name: string, behaviour: Behaviour): Promise<Receiver> {
  // The port is fixed once, so that a receiver that comes back is the same URL. While it
  // refuses, another process could take the port: coming back would then fail, loudly.
  const port = await freePort();
  let current = behaviour;
  let open = 0;
  const requests: ReceivedRequest[] = [];

  function answer(received: ReceivedRequest, response: ServerResponse) {
    const status = current === 'fail' ? 500 : 200;
    open += 1;
    const settle = (outcome: number | 'cut') => {
      if (received.answer !== undefined) return;
      received.answer = outcome;
      received.closedAt = Date.now();
      open -= 1;
    };
    // The worker timing out, or dying (SIGKILL closes its sockets), closes the connection.
    response.on('close', () => settle(response.writableFinished ? status : 'cut'));
    setTimeout(() => {
      if (response.destroyed) return;
      response.writeHead(status, { 'content-type': 'text/plain' });
      response.end(status === 500 ? 'receiver failing on purpose' : 'ok');
    }, ANSWER_DELAY_MS[current] ?? 0);
  }

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = headersOf(request);
      const received: ReceivedRequest = {
        webhookId: headers['webhook-id'] ?? '',
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(received);
      answer(received, response);
    });
  });
  let listening = false;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        listening = true;
        resolve();
      });
    });
  const stopListening = () =>
    new Promise<void>((resolve) => {
      listening = false;
      server.closeAllConnections();
      server.close(() => resolve());
    });

  const become = async (next: Behaviour) => {
    current = next;
    if (next === 'refuse' && listening) await stopListening();
    if (next !== 'refuse' && !listening) await listen();
  };
  await become(behaviour);
  return {
    name,
    url: `http://127.0.0.1:${port}/${name}`,
    behaviour: () => current,
    become,
    requests,
    open: () => open,
    close: async () => {
      if (listening) await stopListening();
    },
  };
}
