import type { Caller } from './caller.js';
import type { CallOptions, DeliveryQuery, JsonBody } from './types.js';

/** The account's webhook endpoints and their deliveries: calls made with the login token. */
export class Endpoints {
  constructor(private readonly caller: Caller) {}

  private withId(id: string) {
    return { headers: this.caller.bearer(), params: { path: { id } } };
  }

  create(body: JsonBody<'/api/webhooks/endpoints', 'post'>, options?: CallOptions) {
    return this.caller.data(
      (fetch) =>
        this.caller.http.POST('/api/webhooks/endpoints', {
          headers: this.caller.bearer(),
          body,
          fetch,
        }),
      'unprocessed',
      options,
    );
  }

  list(options?: CallOptions) {
    return this.caller.data(
      (fetch) =>
        this.caller.http.GET('/api/webhooks/endpoints', { headers: this.caller.bearer(), fetch }),
      'idempotent',
      options,
    );
  }

  get(id: string, options?: CallOptions) {
    return this.caller.data(
      (fetch) =>
        this.caller.http.GET('/api/webhooks/endpoints/{id}', { ...this.withId(id), fetch }),
      'idempotent',
      options,
    );
  }

  update(
    id: string,
    body: JsonBody<'/api/webhooks/endpoints/{id}', 'patch'>,
    options?: CallOptions,
  ) {
    return this.caller.data(
      (fetch) =>
        this.caller.http.PATCH('/api/webhooks/endpoints/{id}', { ...this.withId(id), body, fetch }),
      'unprocessed',
      options,
    );
  }

  async delete(id: string, options?: CallOptions): Promise<void> {
    await this.caller.call(
      (fetch) =>
        this.caller.http.DELETE('/api/webhooks/endpoints/{id}', { ...this.withId(id), fetch }),
      'idempotent',
      options,
    );
  }

  /** Sends the endpoint a `ping` message now. */
  test(id: string, options?: CallOptions) {
    return this.caller.data(
      (fetch) =>
        this.caller.http.POST('/api/webhooks/endpoints/{id}/test', { ...this.withId(id), fetch }),
      'unprocessed',
      options,
    );
  }

  /** Holds the endpoint's deliveries, none failed or lost, until `resume`; a ping still goes. */
  pause(id: string, options?: CallOptions) {
    return this.caller.data(
      (fetch) =>
        this.caller.http.POST('/api/webhooks/endpoints/{id}/pause', { ...this.withId(id), fetch }),
      'idempotent',
      options,
    );
  }

  /** Delivers what waited while paused (by its owner or the breaker), in order per slug. */
  resume(id: string, options?: CallOptions) {
    return this.caller.data(
      (fetch) =>
        this.caller.http.POST('/api/webhooks/endpoints/{id}/resume', { ...this.withId(id), fetch }),
      'idempotent',
      options,
    );
  }

  /** Every delivery to the endpoint matching `query`, newest first, page by page. */
  deliveries(id: string, query: DeliveryQuery = {}, options?: CallOptions) {
    return this.caller.pages(
      query.cursor,
      (cursor, fetch) =>
        this.caller.http.GET('/api/webhooks/endpoints/{id}/deliveries', {
          headers: this.caller.bearer(),
          params: {
            path: { id },
            query: { ...query, ...(cursor === undefined ? {} : { cursor }) },
          },
          fetch,
        }),
      options,
    );
  }

  resend(id: string, deliveryId: string, options?: CallOptions) {
    return this.caller.data(
      (fetch) =>
        this.caller.http.POST('/api/webhooks/endpoints/{id}/deliveries/{deliveryId}/resend', {
          headers: this.caller.bearer(),
          params: { path: { id, deliveryId } },
          fetch,
        }),
      'unprocessed',
      options,
    );
  }
}
