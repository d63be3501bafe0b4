import type { Caller } from './caller.js';
import { IngestError } from './errors.js';
import type { CallOptions, JsonBody } from './types.js';

type NewKey = JsonBody<'/api/webhooks/api-keys', 'post'>;

/** The account's API keys: calls made with the login token. */
export class ApiKeys {
  constructor(private readonly caller: Caller) {}

  /** A new key; its `key` and `signingSecret` are shown once, in this answer. */
  create(body: NewKey, options?: CallOptions) {
    return this.caller.data(
      (fetch) =>
        this.caller.http.POST('/api/webhooks/api-keys', {
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
        this.caller.http.GET('/api/webhooks/api-keys', { headers: this.caller.bearer(), fetch }),
      'idempotent',
      options,
    );
  }

  async revoke(id: string, options?: CallOptions): Promise<void> {
    await this.caller.call(
      (fetch) =>
        this.caller.http.DELETE('/api/webhooks/api-keys/{id}', {
          headers: this.caller.bearer(),
          params: { path: { id } },
          fetch,
        }),
      'idempotent',
      options,
    );
  }

  /**
   * Replaces a key: a new one with the same name, scopes and signature rule, then the old
   * one revoked. The service keeps a key's value for its life, so rotating is replacing;
   * publishers switch to the returned key (its `signingSecret` is new as well).
   */
  async rotate(id: string, options?: CallOptions) {
    const { items } = await this.list(options);
    const old = items.find((key) => key.id === id);
    if (old === undefined)
      throw new IngestError({ status: 404, code: 'NOT_FOUND', message: `No API key ${id}` });
    const replacement = await this.create(
      {
        name: old.name,
        // The list types scopes as text; they are the ones this key was created with.
        scopes: old.scopes as NewKey['scopes'],
        requireSignature: old.requireSignature,
      },
      options,
    );
    await this.revoke(id, options);
    return replacement;
  }

  /** A new signing secret; the previous one still verifies for the overlap the answer says. */
  rotateSigningSecret(id: string, options?: CallOptions) {
    return this.caller.data(
      (fetch) =>
        this.caller.http.POST('/api/webhooks/api-keys/{id}/signing-secret', {
          headers: this.caller.bearer(),
          params: { path: { id } },
          fetch,
        }),
      'unprocessed',
      options,
    );
  }
}
