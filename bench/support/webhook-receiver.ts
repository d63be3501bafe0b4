// The subscribers' side of outgoing webhooks: one plain HTTP server in the runner process
// that reads each delivery's body and answers 200 with nothing, at once. No signature is
// checked: the receiver is there to cost as little as possible, so that what the bench
// measures is the worker's side. It runs in the runner, which is idle while workers drain
// (it only polls the database); the runner's CPU in each step's log says whether it came
// near one core, where the receiver would be the limit (a note then says so).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookReceiver {
  /** The URL of one of its paths, as an endpoint is registered with it. */
  url: (path: string) => string;
  /** Requests answered since it started. */
  received: () => number;
  stop: () => Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  let received = 0;
  const server = createServer((request, response) => {
    // Answered once the body is in (a 2-3 KB body comes in one read): a worker that
    // had not finished writing would otherwise see its connection closed under it.
    request.resume();
    request.once('end', () => {
      received += 1;
      response.writeHead(200, { 'content-length': '0' });
      response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received: () => received,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
