// OpenTelemetry end to end: a traced API process and a traced worker process export to an
// OTLP receiver in this process, and one event's trace is read back from what they sent.
import { randomBytes } from 'node:crypto';
import { freePort } from '@ingest/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, registerAccount } from './support/accounts.js';
import { articleData, finalReceipt, uniqueSlug } from './support/content.js';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from './support/otlp-receiver.js';
import { startReceivers, type Receivers } from './support/receivers.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import {
  startAppProcess,
  startWorkerProcess,
  type AppProcess,
  type WorkerProcess,
} from './support/worker-process.js';

const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
};

let otlp: OtlpReceiver;
let receivers: Receivers;
/** Makes the accounts, keys and endpoints, and removes them at the end; untraced. */
let home: TestApi;
let tracedApi: AppProcess;
let worker: WorkerProcess;
let base: string;

beforeAll(async () => {
  [otlp, receivers] = await Promise.all([startOtlpReceiver(), startReceivers()]);
  home = await startTestApi(WEBHOOK_ENV);
  const tracing = {
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
    OTEL_TRACES_SAMPLER: 'always_on',
    // Sent at once, so that the test need not wait out the default 5 s.
    OTEL_BSP_SCHEDULE_DELAY: '100',
    ...WEBHOOK_ENV,
  };
  const port = await freePort();
  [tracedApi, worker] = await Promise.all([
    startAppProcess('apps/api/src/server.ts', /Server listening/, {
      REDIS_KEY_PREFIX: `test:${home.tag}`,
      JWT_SECRET: randomBytes(32).toString('hex'),
      PORT: String(port),
      ...tracing,
    }),
    startWorkerProcess(home.tag, tracing),
  ]);
  base = `http://127.0.0.1:${port}`;
}, 60_000);
afterAll(async () => {
  await Promise.all([tracedApi?.stop('SIGTERM'), worker?.stop()]);
  await home?.close();
  await Promise.all([otlp?.close(), receivers?.close()]);
});

/** The spans of one trace once `done` holds for them, as exports arrive in batches. */
async function traceOnce(traceId: string, done: (spans: ReceivedSpan[]) => boolean) {
  const inTrace = () => otlp.spans.filter((span) => span.traceId === traceId);
  await expect.poll(() => done(inTrace()), { timeout: 20_000, interval: 100 }).toBe(true);
  return inTrace();
}

const named = (spans: ReceivedSpan[], name: string, service?: string) =>
  spans.filter((span) => span.name === name && (service === undefined || span.service === service));

function only(spans: ReceivedSpan[], name: string, service?: string): ReceivedSpan {
  const found = named(spans, name, service);
  expect(found, `exactly one span "${name}"`).toHaveLength(1);
  return found[0]!;
}

/** Whether `span` descends from `ancestor`, following parents within `spans`. */
function descendsFrom(spans: ReceivedSpan[], span: ReceivedSpan, ancestor: ReceivedSpan): boolean {
  const byId = new Map(spans.map((each) => [each.spanId, each]));
  for (let at = byId.get(span.parentSpanId); at !== undefined; at = byId.get(at.parentSpanId)) {
    if (at.spanId === ancestor.spanId) return true;
  }
  return false;
}

/** Publishes an article.create as part of a trace of the caller's, which it returns. */
async function publishTraced(key: string) {
  const traceId = randomBytes(16).toString('hex');
  const callerSpanId = randomBytes(8).toString('hex');
  const published = await fetch(`${base}/api/webhooks/content`, {
    method: 'POST',
    headers: {
      'x-api-key': key,
      'content-type': 'application/json',
      traceparent: `00-${traceId}-${callerSpanId}-01`,
    },
    body: JSON.stringify({ event: 'article.create', data: articleData({ slug: uniqueSlug() }) }),
  });
  expect(published.status).toBe(202);
  const { id } = (await published.json()) as { id: string };
  return { traceId, callerSpanId, id };
}

/** The batch span named `name` that carried `member`: its child, or linking to it. */
const batchCarrying = (name: string, member: ReceivedSpan) =>
  otlp.spans.find(
    (span) =>
      span.name === name &&
      (span.parentSpanId === member.spanId ||
        span.links.some((link) => link.spanId === member.spanId)),
  );

describe('tracing', () => {
  it('follows one event from the publisher through the API and the worker to its delivery', async () => {
    const account = await registerAccount(home);
    const { key } = await createKey(home, account);
    receivers.script('/hook', [{ status: 200 }]);
    const endpoint = await home.app.inject({
      method: 'POST',
      url: '/api/webhooks/endpoints',
      headers: bearer(account.token),
      payload: { url: `${receivers.base}/hook` },
    });
    expect(endpoint.statusCode, endpoint.body).toBe(201);

    // The publisher's own trace: the event's spans join it.
    const { traceId, callerSpanId, id } = await publishTraced(key);
    expect((await finalReceipt(home, key, id)).status).toBe('succeeded');

    // The delivery job's span ends after its attempt's, and may come in a later export:
    // wait for both.
    const spans = await traceOnce(
      traceId,
      (found) =>
        named(found, 'webhook.delivery_attempt').length > 0 &&
        named(found, 'process webhook-deliveries').length > 0,
    );
    expect(otlp.refused).toEqual([]);

    // The API: the request, a child of the caller's span; the event's span within it.
    const request = spans.find(
      (span) => span.service === 'ingest-api' && span.parentSpanId === callerSpanId,
    );
    expect(request, 'the request span, child of the caller').toBeDefined();
    const accepted = only(spans, 'event.accept', 'ingest-api');
    expect(accepted.attributes['ingest.event.id']).toBe(id);
    expect(descendsFrom(spans, accepted, request!)).toBe(true);
    // The group commit it joined: in this trace, or linked from it.
    const batch = batchCarrying('event_log.accept_batch', accepted);
    expect(batch, 'the accept batch that wrote the event').toBeDefined();
    expect(batch!.attributes['ingest.batch.size']).toBeGreaterThanOrEqual(1);

    // The worker: the job's span is a child of the event's, carried in the job.
    const job = only(spans, 'process content-events', 'ingest-worker');
    expect(job.parentSpanId).toBe(accepted.spanId);
    // A first delivery reads its event; the apply transaction claims it.
    const read = only(spans, 'event.read', 'ingest-worker');
    const apply = only(spans, 'event.apply', 'ingest-worker');
    expect(read.parentSpanId).toBe(job.spanId);
    expect(spans.some((span) => span.name === 'event.claim')).toBe(false);
    expect(apply.parentSpanId).toBe(job.spanId);
    expect(apply.attributes['ingest.event.id']).toBe(id);
    const transaction = batchCarrying('event_log.apply_transaction', apply);
    expect(transaction, 'the apply transaction').toBeDefined();
    const outcomes = otlp.spans.find(
      (span) =>
        span.name === 'event_log.record_outcomes' && span.parentSpanId === transaction!.spanId,
    );
    expect(outcomes, 'the outcome record, inside the transaction').toBeDefined();

    // The delivery: its job and its attempt, in the same trace, under the apply.
    const deliveryJob = only(spans, 'process webhook-deliveries', 'ingest-worker');
    expect(descendsFrom(spans, deliveryJob, apply)).toBe(true);
    const attempt = only(spans, 'webhook.delivery_attempt', 'ingest-worker');
    expect(attempt.parentSpanId).toBe(deliveryJob.spanId);
    expect(attempt.attributes['ingest.delivery.outcome']).toBe('succeeded');
    expect(receivers.receivedAt('/hook')).toHaveLength(1);
  });

  it('writes the trace id in the log lines of a traced request and job', async () => {
    const { key } = await createKey(home, await registerAccount(home));
    const { traceId, id } = await publishTraced(key);
    expect((await finalReceipt(home, key, id)).status).toBe('succeeded');

    const linesOf = (proc: AppProcess) =>
      proc.lines
        .filter((line) => line.includes(id))
        .map((line) => JSON.parse(line) as { msg: string; trace_id?: string });
    await expect
      .poll(() => linesOf(worker).some((line) => line.msg === 'event applied'), { timeout: 5_000 })
      .toBe(true);
    const apiLines = linesOf(tracedApi);
    expect(apiLines.map((line) => line.msg)).toContain('request completed');
    for (const line of [...apiLines, ...linesOf(worker)]) {
      expect(line.trace_id, `"${line.msg}" carries the trace id`).toBe(traceId);
    }
  });
});
