// One way to send the harness's requests, whether the API listens on a port (the fault
// suite, the bench) or is a Fastify app inside the test's own process (`app.inject`, no
// socket). Bodies go as JSON text either way, so both transports send the same bytes.

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ApiRequest {
  method: HttpMethod;
  /** Path and query, e.g. `/api/auth/register`. */
  path: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
}

export interface ApiResponse {
  status: number;
  text: string;
}

export type ApiClient = (request: ApiRequest) => Promise<ApiResponse>;

function encode(request: ApiRequest): { headers: Record<string, string>; body?: string } {
  if (request.body === undefined) return { headers: request.headers ?? {} };
  return {
    headers: { 'content-type': 'application/json', ...request.headers },
    body: JSON.stringify(request.body),
  };
}

/** Requests over HTTP to `baseUrl`; each is abandoned after `timeoutMs`. */
export function fetchClient(baseUrl: string, timeoutMs = 15_000): ApiClient {
  return async (request) => {
    const { headers, body } = encode(request);
    const response = await fetch(`${baseUrl}${request.path}`, {
      method: request.method,
      headers,
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: response.status, text: await response.text() };
  };
}

/** As much of Fastify's `app.inject` as the harness uses: pass `(o) => app.inject(o)`. */
export type InjectFunction = (options: {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}) => PromiseLike<{ statusCode: number; body: string }>;

/** Requests through a Fastify app's `inject`, for tests that build the app in-process. */
export function injectClient(inject: InjectFunction): ApiClient {
  return async (request) => {
    const { headers, body } = encode(request);
    const response = await inject({
      method: request.method,
      url: request.path,
      headers,
      payload: body,
    });
    return { status: response.statusCode, text: response.body };
  };
}
