// An OTLP/HTTP trace receiver on loopback, in the test's own process: what a collector
// would get from the API and the workers, kept for the test to read.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
}

export interface OtlpReceiver {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to: spans arrive at `<it>/v1/traces`. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Export requests that were not OTLP/JSON trace requests. */
  refused: string[];
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: OtlpKeyValue[];
  links?: Array<{ traceId: string; spanId: string }>;
}
interface OtlpRequest {
  resourceSpans: Array<{
    resource: { attributes: OtlpKeyValue[] };
    scopeSpans: Array<{ spans: OtlpSpan[] }>;
  }>;
}

const valueOf = (value: OtlpValue): unknown =>
  value.stringValue ?? value.boolValue ?? value.doubleValue ?? Number(value.intValue);

const attributesOf = (pairs: OtlpKeyValue[] = []) =>
  Object.fromEntries(pairs.map(({ key, value }) => [key, valueOf(value)]));

/** OTLP/JSON ids are hex; a serializer that writes protobuf's base64 is read too. */
const idOf = (id: string | undefined): string =>
  id === undefined || id === '' || /^[0-9a-f]+$/.test(id)
    ? (id ?? '')
    : Buffer.from(id, 'base64').toString('hex');

function spansOf(request: OtlpRequest): ReceivedSpan[] {
  return request.resourceSpans.flatMap(({ resource, scopeSpans }) => {
    const service = String(attributesOf(resource.attributes)['service.name']);
    return scopeSpans.flatMap(({ spans }) =>
      spans.map((span) => ({
        service,
        traceId: idOf(span.traceId),
        spanId: idOf(span.spanId),
        parentSpanId: idOf(span.parentSpanId),
        name: span.name,
        attributes: attributesOf(span.attributes),
        links: (span.links ?? []).map((link) => ({
          traceId: idOf(link.traceId),
          spanId: idOf(link.spanId),
        })),
      })),
    );
  });
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const refused: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const type = request.headers['content-type'] ?? '';
      if (request.url !== '/v1/traces' || !type.startsWith('application/json')) {
        refused.push(`${request.method} ${request.url} ${type}`);
        return response.writeHead(415).end();
      }
      spans.push(...spansOf(JSON.parse(Buffer.concat(chunks).toString()) as OtlpRequest));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    refused,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
