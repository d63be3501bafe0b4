import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

const HOP_HEADERS = new Set([
  'content-encoding',
  'content-length',
  'transfer-encoding',
  'connection',
]);

/** How the proxy answers one request itself, instead of passing it on. */
export interface ProxyAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface SeenRequest {
  at: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

export interface FaultProxy {
  url: string;
  /** Every request that reached the proxy, in order. */
  seen: SeenRequest[];
  close(): Promise<void>;
}

/**
 * A reverse proxy in front of the service, as a load balancer would be: it answers the
 * first requests itself, one scripted answer each (a 429, a 503, a proxy's HTML 502), then
 * passes the rest on to `target` unchanged. `repeatLast` keeps answering the last one.
 */
export async function startFaultProxy(
  target: string,
  answers: ProxyAnswer[],
  options: { repeatLast?: boolean } = {},
): Promise<FaultProxy> {
  const script = [...answers];
  const seen: SeenRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({
        at: performance.now(),
        method: request.method ?? 'GET',
        path: request.url ?? '/',
        headers: request.headers,
      });
      const answer =
        options.repeatLast === true && script.length === 1 ? script[0] : script.shift();
      if (answer !== undefined) {
        response.writeHead(answer.status, answer.headers).end(answer.body ?? '');
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(request.headers).flatMap(([name, value]) =>
          typeof value === 'string' && name !== 'host' && name !== 'connection'
            ? [[name, value]]
            : [],
        ),
      );
      void fetch(`${target}${request.url ?? '/'}`, {
        method: request.method ?? 'GET',
        headers,
        ...(chunks.length === 0 ? {} : { body: Buffer.concat(chunks) }),
      }).then(
        async (answered) => {
          const body = Buffer.from(await answered.arrayBuffer());
          // fetch has already decoded the body and framed it: those headers no longer hold.
          const passed = [...answered.headers.entries()].filter(([name]) => !HOP_HEADERS.has(name));
          response.writeHead(answered.status, Object.fromEntries(passed));
          response.end(body);
        },
        () => response.writeHead(502).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
