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
  /** 0: no answer at all, the connection closed (a network error to the client). */
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /**
   * Pass the request on first, and answer this instead of the service's answer: an answer
   * lost on its way back, after the service acted on the request.
   */
  afterPassingOn?: boolean;
  /** No answer at all, the connection left open: a call that waits until its caller dies. */
  hang?: boolean;
}

export interface SeenRequest {
  at: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface FaultProxy {
  url: string;
  /** Every request that reached the proxy, in order. */
  seen: SeenRequest[];
  close(): Promise<void>;
}

/**
 * A reverse proxy in front of the service, as a load balancer would be: it answers the
 * first requests itself, one scripted answer each (a 429, a 503, a proxy's HTML 502, a
 * closed connection, before or after the service had the request), then passes the rest
 * on to `target` unchanged. `repeatLast` keeps answering the last one.
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
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const answer =
        options.repeatLast === true && script.length === 1 ? script[0] : script.shift();
      const scripted = () => {
        if (answer === undefined || answer.hang === true) return;
        if (answer.status === 0) response.socket?.destroy();
        else response.writeHead(answer.status, answer.headers).end(answer.body ?? '');
      };
      if (answer !== undefined && answer.afterPassingOn !== true) {
        scripted();
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
          if (answer !== undefined) return scripted();
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
