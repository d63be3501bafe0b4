import { ApiKeys } from './api-keys.js';
import { Caller, type IngestClientOptions } from './caller.js';
import { Endpoints } from './endpoints.js';
import { Operator } from './operator.js';
import { IngestError } from './errors.js';
import { publishEvents, type PublishManyOptions } from './publish-many.js';
import { sleep } from './retry.js';
import type { PublishManyResult } from './settle-batch.js';
import type {
  AcceptedEvent,
  BatchEvent,
  CallOptions,
  ContentEvent,
  DeliveryQuery,
  EventData,
  EventName,
  JsonBody,
  Receipt,
  ReceiptQuery,
} from './types.js';

export interface PublishOptions extends CallOptions {
  /**
   * The call's identity: a retry of the same logical publish must reuse it, and the
   * client does so on its own retries. Default: a new random one for this call. Derive
   * it from your own record (`article-42-v7`) to make publishing exactly-once across your
   * own restarts too.
   */
  idempotencyKey?: string;
  /** Seconds (at most 30) to wait for the outcome before answering (`Prefer: wait`). */
  wait?: number;
}

export interface PublishResult {
  /** The receipt when the event finished within `wait`, else the accepted event. */
  receipt: Receipt | AcceptedEvent;
  /** The Idempotency-Key the call was sent with. */
  idempotencyKey: string;
  /** True when the service had this key already and answered with that first event. */
  replayed: boolean;
  /** How many sends it took. */
  attempts: number;
}

const FINISHED = new Set<Receipt['status']>(['succeeded', 'failed', 'rejected']);

/**
 * A client of the content ingestion service. Publishing is exactly-once by default: each
 * `publish` call has one Idempotency-Key, reused on every retry, so a retry after a lost
 * answer gives back the first event instead of a second one.
 */
export class IngestClient {
  private readonly caller: Caller;
  /** The account's API keys (with a login token). */
  readonly apiKeys: ApiKeys;
  /** The account's webhook endpoints and their deliveries (with a login token). */
  readonly endpoints: Endpoints;
  /** What operators do (with an operator's login token). */
  readonly operator: Operator;

  constructor(private readonly options: IngestClientOptions) {
    this.caller = new Caller(options);
    this.apiKeys = new ApiKeys(this.caller);
    this.endpoints = new Endpoints(this.caller);
    this.operator = new Operator(this.caller);
  }

  /** The same client with other credentials (say, the token `login` gave). */
  with(credentials: Pick<IngestClientOptions, 'apiKey' | 'token' | 'signingSecret'>): IngestClient {
    return new IngestClient({ ...this.options, ...credentials });
  }

  register(body: JsonBody<'/api/auth/register', 'post'>, options?: CallOptions) {
    return this.caller.data(
      (fetch) => this.caller.http.POST('/api/auth/register', { body, fetch }),
      'unprocessed',
      options,
    );
  }

  /** Logs in; the answer's `token` goes into `with({ token })`. */
  login(body: JsonBody<'/api/auth/login', 'post'>, options?: CallOptions) {
    return this.caller.data(
      (fetch) => this.caller.http.POST('/api/auth/login', { body, fetch }),
      'unprocessed',
      options,
    );
  }

  /** Erases the logged-in account and everything of it: its password again, as at login. */
  eraseAccount(body: JsonBody<'/api/auth/me/erasure', 'post'>, options?: CallOptions) {
    return this.caller.data(
      (fetch) =>
        this.caller.http.POST('/api/auth/me/erasure', {
          headers: this.caller.bearer(),
          body,
          fetch,
        }),
      'unprocessed',
      options,
    );
  }

  /** The account the key or token belongs to. */
  me(options?: CallOptions) {
    return this.caller.data(
      (fetch) =>
        this.caller.http.GET('/api/auth/me', { headers: this.caller.keyOrBearer(), fetch }),
      'idempotent',
      options,
    );
  }

  /**
   * Sends one content event. Exactly-once by default: one Idempotency-Key per call, reused
   * on each retry (network errors, 429, 5xx, 409 IDEMPOTENCY_KEY_IN_USE), which wait as
   * Retry-After says or back off with jitter. Signed when the client has a signing secret.
   * Throws an IngestError for any answer that is not 2xx.
   */
  async publish<Name extends EventName>(
    event: Name,
    data: EventData<Name>,
    options: PublishOptions = {},
  ): Promise<PublishResult> {
    const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
    const body = { event, data } as ContentEvent;
    const prefer = options.wait === undefined ? {} : { prefer: `wait=${options.wait}` };
    const {
      data: receipt,
      response,
      attempts,
    } = await this.caller.call(
      (fetch) =>
        this.caller.http.POST('/api/webhooks/content', {
          headers: this.caller.apiKey(),
          params: { header: { 'idempotency-key': idempotencyKey, ...prefer } },
          body,
          fetch,
        }),
      'idempotent',
      { ...options, signingSecret: this.options.signingSecret },
    );
    return {
      receipt,
      idempotencyKey,
      replayed: response.headers.get('idempotent-replayed') === 'true',
      attempts,
    };
  }

  /**
   * Sends many events in batches (`batchSize`, default 100, within `maxBatchBytes`),
   * `concurrency` calls at a time (default 1), and gives one result per event, in the
   * order given. Exactly-once like `publish`: each event without an idempotencyKey gets
   * one, kept on every send. Only the events that need it are sent again (rate-limited,
   * a key in use, a 5xx; a whole call on a network error, a timeout, 429, 503 or 5xx),
   * waiting as the service asks or backing off. Refused events are results, not throws.
   */
  async publishMany(
    events: readonly BatchEvent[],
    options: PublishManyOptions = {},
  ): Promise<PublishManyResult[]> {
    const results = new Array<PublishManyResult>(events.length);
    await publishEvents(this.caller, events, options, (result, index) => {
      results[index] = result;
    });
    return results;
  }

  /**
   * `publishMany` for a source too large to hold: takes its events as calls are free to
   * carry them, and tells each one's result, with its place in the source, as it comes.
   * Resolves once every event of the source has its result: to stop taking events, end
   * the source; `signal` gives up the calls in flight too.
   */
  publishStream(
    source: Iterable<BatchEvent> | AsyncIterable<BatchEvent>,
    onResult: (result: PublishManyResult, index: number) => void,
    options: PublishManyOptions = {},
  ): Promise<void> {
    return publishEvents(this.caller, source, options, onResult);
  }

  getReceipt(id: string, options?: CallOptions): Promise<Receipt> {
    return this.caller.data(
      (fetch) =>
        this.caller.http.GET('/api/webhooks/content/{id}', {
          headers: this.caller.keyOrBearer(),
          params: { path: { id } },
          fetch,
        }),
      'idempotent',
      options,
    );
  }

  /** Every receipt matching `query`, newest first, a page at a time as you iterate. */
  listReceipts(query: ReceiptQuery = {}, options?: CallOptions): AsyncGenerator<Receipt> {
    return this.caller.pages(
      query.cursor,
      (cursor, fetch) =>
        this.caller.http.GET('/api/webhooks/content', {
          headers: this.caller.keyOrBearer(),
          params: { query: { ...query, ...(cursor === undefined ? {} : { cursor }) } },
          fetch,
        }),
      options,
    );
  }

  /**
   * The event's receipt once it has finished (succeeded, failed or rejected), read every
   * `intervalMs` (doubling up to 2 s); an IngestError with code REQUEST_TIMEOUT after
   * `timeoutMs`. To wait for an event as you publish it, pass `wait` to `publish`
   * instead: the service then answers with the outcome (`Prefer: wait`), no polling.
   */
  async waitForOutcome(
    id: string,
    options: CallOptions & { timeoutMs?: number; intervalMs?: number } = {},
  ): Promise<Receipt> {
    const deadline = Date.now() + (options.timeoutMs ?? 30_000);
    let interval = options.intervalMs ?? 100;
    for (;;) {
      const receipt = await this.getReceipt(id, options);
      if (FINISHED.has(receipt.status)) return receipt;
      if (Date.now() + interval > deadline)
        throw new IngestError({
          status: 0,
          code: 'REQUEST_TIMEOUT',
          message: `Event ${id} was still ${receipt.status} when the wait ended`,
        });
      await sleep(interval, options.signal);
      interval = Math.min(interval * 2, 2_000);
    }
  }

  /** Every delivery to endpoint `id` matching `query`, newest first, page by page. */
  deliveries(id: string, query: DeliveryQuery = {}, options?: CallOptions) {
    return this.endpoints.deliveries(id, query, options);
  }
}
