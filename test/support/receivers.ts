// HTTP receivers of outgoing webhooks on loopback, for tests: each path answers as its
// script says, and every request is kept for the test to check.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When the request had arrived whole (Date.now()). */
  at: number;
}

export interface ReceiverStep {
  status: number;
  body?: string;
  delayMs?: number;
}

export interface Receivers {
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** How `path` answers: one step per request, the last repeating. Unscripted paths answer 404. */
  script(path: string, steps: ReceiverStep[]): void;
  /** The requests `path` received, in order. */
  receivedAt(path: string): Received[];
  close(): Promise<void>;
}

export async function startReceivers(): Promise<Receivers> {
  const scripts = new Map<string, ReceiverStep[]>();
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      received.push({
        path,
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
        at: Date.now(),
      });
      const script = scripts.get(path) ?? [{ status: 404 }];
      const step = script.length > 1 ? script.shift() : script[0];
      setTimeout(() => {
        if (!response.destroyed) response.writeHead(step?.status ?? 200).end(step?.body ?? '');
      }, step?.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    script: (path, steps) => scripts.set(path, [...steps]),
    receivedAt: (path) => received.filter((r) => r.path === path),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
