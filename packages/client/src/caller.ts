import createClient, { type Client } from 'openapi-fetch';
import { errorFromAnswer, IngestError } from './errors.js';
import type { paths } from './generated/openapi.js';
import { DEFAULT_RETRY, type RetryOptions, type RetryPolicy } from './retry.js';
import { send, type Retryable } from './transport.js';
import type { CallOptions } from './types.js';

export interface IngestClientOptions {
  /** Where the service is, e.g. `https://ingest.example.com` or `http://localhost:3000`. */
  baseUrl: string;
  /** An API key (`sk-…`), for publishing and reading receipts. */
  apiKey?: string | undefined;
  /** A JWT from `login`, for managing the account, its keys and endpoints. */
  token?: string | undefined;
  /** The API key's signing secret (`whsec_…`): when given, every publish is signed. */
  signingSecret?: string | undefined;
  retry?: RetryOptions;
  /** The fetch to send with (default: the global one). */
  fetch?: typeof fetch;
}

/** The service's answer to one call: openapi-fetch's result shape. */
interface Answer<Data> {
  data?: Data;
  error?: unknown;
  response: Response;
}

export type Fetch = (request: Request) => Promise<Response>;

/** How one call is sent, beyond the caller's options. */
export interface SendTuning {
  signingSecret?: string | undefined;
  /** Fewer sends than the client's policy allows: what a batch has left of its budget. */
  attempts?: number;
  timeoutMs?: number | undefined;
}

const unauthenticated = (message: string) =>
  new IngestError({ status: 0, code: 'UNAUTHENTICATED', message });

/**
 * What every call goes through: the typed paths (openapi-fetch), the credentials each
 * kind of call sends, and `send` for retries and signatures. A non-2xx answer becomes an
 * IngestError here, once.
 */
export class Caller {
  readonly http: Client<paths>;
  readonly retry: RetryPolicy;

  constructor(readonly options: IngestClientOptions) {
    this.http = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, '') });
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
  }

  async call<Data>(
    request: (fetch: Fetch) => Promise<Answer<Data>>,
    retryable: Retryable,
    options: CallOptions & SendTuning = {},
  ): Promise<{ data: Data; response: Response; attempts: number }> {
    let attempts = 0;
    const fetch: Fetch = async (sent) => {
      const result = await send(sent, {
        // Called through globalThis: a browser refuses fetch detached from its window.
        fetch: this.options.fetch ?? ((input: Request) => globalThis.fetch(input)),
        retry: { ...this.retry, attempts: options.attempts ?? this.retry.attempts },
        retryable,
        signingSecret: options.signingSecret,
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        onRetry: options.onRetry,
      });
      attempts = result.attempts;
      return result.response;
    };
    const answer = await request(fetch);
    if (!answer.response.ok) throw errorFromAnswer(answer.response, answer.error, attempts);
    return { data: answer.data as Data, response: answer.response, attempts };
  }

  /** The answer's body alone. */
  async data<Data>(
    request: (fetch: Fetch) => Promise<Answer<Data>>,
    retryable: Retryable,
    options?: CallOptions,
  ): Promise<Data> {
    return (await this.call(request, retryable, options)).data;
  }

  /** Every item of a paged list, a page at a time as the caller iterates. */
  async *pages<Item>(
    firstCursor: string | undefined,
    page: (
      cursor: string | undefined,
      fetch: Fetch,
    ) => Promise<Answer<{ items: Item[]; nextCursor?: string | null }>>,
    options?: CallOptions,
  ): AsyncGenerator<Item> {
    let cursor = firstCursor;
    do {
      const { items, nextCursor } = await this.data(
        (fetch) => page(cursor, fetch),
        'idempotent',
        options,
      );
      yield* items;
      cursor = nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  /** The login token, for the account's own calls. */
  bearer(): Record<string, string> {
    if (this.options.token === undefined)
      throw unauthenticated('This call needs a token: log in first (IngestClient.login)');
    return { authorization: `Bearer ${this.options.token}` };
  }

  /** The API key, for publishing. */
  apiKey(): Record<string, string> {
    if (this.options.apiKey === undefined)
      throw unauthenticated('Publishing needs an API key (sk-…): create one with apiKeys.create');
    return { 'x-api-key': this.options.apiKey };
  }

  /** The API key when there is one, else the token: for the reads that take either. */
  keyOrBearer(): Record<string, string> {
    return this.options.apiKey === undefined ? this.bearer() : this.apiKey();
  }
}
