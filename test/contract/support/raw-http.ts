// Requests that only a real socket can carry. inject() hands Fastify a request Node's HTTP
// parser never checked, so what that parser refuses (headers too large: 431; NUL or a bare
// CR in a header; a malformed request line; conflicting lengths) is answered by Node, or
// by Fastify's clientErrorHandler, only when the bytes arrive over TCP.
import { connect } from 'node:net';
import type { ObservedResponse } from './validator.js';

/** Sends `bytes` on a fresh connection and parses the first response (or throws). */
export function rawExchange(
  port: number,
  bytes: Buffer,
  timeoutMs = 5_000,
): Promise<ObservedResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const done = (error?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (error !== undefined) return reject(error);
      const parsed = parseResponse(Buffer.concat(chunks));
      if (parsed === undefined) {
        return reject(
          new Error(
            `no HTTP response; got ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 200))}`,
          ),
        );
      }
      resolve(parsed);
    };
    const timer = setTimeout(() => done(), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const parsed = parseResponse(Buffer.concat(chunks));
      if (parsed?.complete === true) done();
    });
    socket.on('end', () => done());
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server may reset the connection after answering a request it refused.
      if (chunks.length > 0 && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) done();
      else done(error);
    });
    socket.write(bytes);
  });
}

function parseResponse(data: Buffer): (ObservedResponse & { complete: boolean }) | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine = '', ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (match === null) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  let body = data.subarray(end + 4);
  let complete = false;
  const length = headers['content-length'];
  if (length !== undefined) {
    complete = body.length >= Number(length);
    body = body.subarray(0, Number(length));
  } else if (headers['transfer-encoding']?.includes('chunked') === true) {
    const decoded = dechunk(body);
    complete = decoded !== undefined;
    body = decoded ?? body;
  }
  return { statusCode: Number(match[1]), headers, body: body.toString('utf8'), complete };
}

/** The body of a chunked message, or undefined while its last chunk has not arrived. */
function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd === -1) return undefined;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return undefined;
    if (size === 0) return Buffer.concat(parts);
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
    if (at > data.length) return undefined;
  }
}
