// Open-loop load past capacity, at a fixed rate, from a process of its own (see
// load-child.ts): `article.create`s of the bench's accounts over raw keep-alive sockets.
//
// Why not autocannon, as elsewhere in the bench: at four times capacity (12,000 requests
// a second here) autocannon took 0.71 of the machine's two cores (about 55 µs a request:
// its HTTP parser, its histograms), so the figure measured the generator as much as the
// service. This writes each request as one prepared buffer and reads only the status line,
// the headers' end and Content-Length of each answer (the service always sends one):
// 12,000 a second took 0.28 cores. Each connection sends on its own schedule, one request
// every `connections / rate` seconds, phased evenly; one whose answer has not come by its
// next turn sends when it comes (a slower rate then, never a burst). At rate 0 each
// connection sends again as soon as it is answered: a closed loop.
//
// With `batch`, each call is a POST /api/webhooks/content/batch of that many creates, and
// its accepted events are the items its 200 answers "queued"; with `keyed`, each event
// has an idempotency key of its own (the item's idempotencyKey, or the Idempotency-Key
// header of a single publish), as the client library sends every event.
import net from 'node:net';
import { articleCreate } from './article-payloads.js';
import { percentile, sortedSamples } from './percentiles.js';

export interface PacedSpec {
  host: string;
  port: number;
  apiKeys: string[];
  runTag: string;
  rate: number;
  connections: number;
  seconds: number;
  /** Answers to requests sent in the first this-many seconds are not counted (connections opening). */
  rampSeconds: number;
  /** Events a call carries, as a batch; a single publish when absent. */
  batch?: number;
  keyed?: boolean;
}

export interface PacedOutcome {
  rate: number;
  connections: number;
  /** Seconds of the counted window. */
  seconds: number;
  sent: number;
  answered: number;
  byStatus: Record<string, number>;
  errors: number;
  /** Events accepted a second over the window: 202s, or the items of batches answered queued. */
  goodput: number;
  /** Calls answered 202, or 200 for a batch (whose items may still have been refused). */
  acceptedMs: { p50: number; p99: number; max: number };
  refusedMs: { p50: number; p99: number };
  /** 429 and 503 answers, and how many of them said when to come back. */
  refused: number;
  refusedWithRetryAfter: number;
}

const HEADERS_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length: *(\d+)/i;
const RETRY_AFTER = /\r\nretry-after: *[1-9]/i;
const QUEUED = Buffer.from('"status":"queued"');

/** How many items of a batch's answer were accepted. */
function queuedItems(body: Buffer): number {
  let count = 0;
  for (let at = body.indexOf(QUEUED); at >= 0; at = body.indexOf(QUEUED, at + QUEUED.length)) {
    count += 1;
  }
  return count;
}

/** The `n`-th call's path, extra headers and body. */
function callOf(spec: PacedSpec, n: number): { path: string; headers: string; body: string } {
  const key = (i: number) => `${spec.runTag}-${i}`;
  if (spec.batch === undefined) {
    const body = JSON.stringify({ event: 'article.create', data: articleCreate(spec.runTag, n) });
    const headers = spec.keyed === true ? `idempotency-key: ${key(n)}\r\n` : '';
    return { path: '/api/webhooks/content', headers, body };
  }
  const first = (n - 1) * spec.batch + 1;
  const events = Array.from({ length: spec.batch }, (_, i) => ({
    event: 'article.create',
    data: articleCreate(spec.runTag, first + i),
    ...(spec.keyed === true ? { idempotencyKey: key(first + i) } : {}),
  }));
  return { path: '/api/webhooks/content/batch', headers: '', body: JSON.stringify({ events }) };
}

export function runPaced(spec: PacedSpec): Promise<PacedOutcome> {
  const started = performance.now();
  const countFrom = started + spec.rampSeconds * 1000;
  const end = countFrom + spec.seconds * 1000;
  const closedLoop = spec.rate === 0;
  const period = closedLoop ? 0 : (spec.connections / spec.rate) * 1000;
  const okStatus = spec.batch === undefined ? 202 : 200;
  const byStatus = new Map<number, number>();
  const accepted: number[] = [];
  const refused: number[] = [];
  let sent = 0;
  let errors = 0;
  let withRetryAfter = 0;
  let acceptedEvents = 0;
  let n = 0;

  const request = () => {
    n += 1;
    const { path, headers, body } = callOf(spec, n);
    const key = spec.apiKeys[n % spec.apiKeys.length] ?? '';
    return Buffer.from(
      `POST ${path} HTTP/1.1\r\nhost: ${spec.host}:${spec.port}\r\n` +
        `content-type: application/json\r\nx-api-key: ${key}\r\n${headers}` +
        `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  };

  const record = (status: number, head: string, body: Buffer, sentAt: number, now: number) => {
    if (sentAt < countFrom || sentAt >= end) return;
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    if (status === okStatus) {
      accepted.push(now - sentAt);
      acceptedEvents += spec.batch === undefined ? 1 : queuedItems(body);
    } else if (status === 429 || status === 503) {
      refused.push(now - sentAt);
      if (RETRY_AFTER.test(head)) withRetryAfter += 1;
    }
  };

  const sockets = new Set<net.Socket>();
  // A connection still waiting this long after the window is cut: its answer is lost.
  const cutOff = setTimeout(
    () => sockets.forEach((socket) => socket.destroy()),
    end - started + 5_000,
  );
  const connection = (index: number) =>
    new Promise<void>((done) => {
      const socket = net.connect(spec.port, spec.host);
      sockets.add(socket);
      socket.setNoDelay(true);
      let pending: Buffer = Buffer.alloc(0);
      let sentAt = 0;
      let waiting = false;
      let next = started + (closedLoop ? 0 : (index * 1000) / spec.rate);
      let timer: NodeJS.Timeout | undefined;
      const send = () => {
        const now = performance.now();
        if (now >= end) {
          socket.end();
          return;
        }
        sentAt = now;
        waiting = true;
        sent += 1;
        socket.write(request());
        next += period;
      };
      const schedule = () => {
        timer = setTimeout(send, Math.max(0, next - performance.now()));
      };
      socket.on('connect', schedule);
      socket.on('data', (chunk: Buffer) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        for (;;) {
          const headEnd = pending.indexOf(HEADERS_END);
          if (headEnd < 0) return;
          const head = pending.toString('latin1', 0, headEnd);
          const length = Number(CONTENT_LENGTH.exec(head)?.[1] ?? 0);
          if (pending.length < headEnd + 4 + length) return;
          const body = pending.subarray(headEnd + 4, headEnd + 4 + length);
          record(Number(head.slice(9, 12)), head, body, sentAt, performance.now());
          pending = pending.subarray(headEnd + 4 + length);
          waiting = false;
          schedule();
        }
      });
      socket.on('error', () => {
        if (waiting) errors += 1;
        waiting = false;
      });
      socket.on('close', () => {
        if (waiting) errors += 1;
        clearTimeout(timer);
        sockets.delete(socket);
        done();
      });
    });

  return Promise.all(Array.from({ length: spec.connections }, (_, i) => connection(i))).then(() => {
    clearTimeout(cutOff);
    const answered = [...byStatus.values()].reduce((sum, count) => sum + count, 0);
    const times = (samples: number[]) => {
      const sorted = sortedSamples(samples);
      const max = sorted[sorted.length - 1] ?? Number.NaN;
      return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max };
    };
    return {
      rate: spec.rate,
      connections: spec.connections,
      seconds: spec.seconds,
      sent,
      answered,
      byStatus: Object.fromEntries([...byStatus].map(([status, count]) => [String(status), count])),
      errors,
      goodput: acceptedEvents / spec.seconds,
      acceptedMs: times(accepted),
      refusedMs: times(refused),
      refused: refused.length,
      refusedWithRetryAfter: withRetryAfter,
    };
  });
}
