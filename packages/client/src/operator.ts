import type { Caller } from './caller.js';
import type { CallOptions } from './types.js';

/** What operators (admin accounts) do with their login token: erasing accounts. */
export class Operator {
  constructor(private readonly caller: Caller) {}

  /** Starts erasing an account, by id or handle, or answers the erasure under way. */
  eraseAccount(account: string, options?: CallOptions) {
    return this.caller.data(
      (fetch) =>
        this.caller.http.DELETE('/api/admin/accounts/{id}', {
          headers: this.caller.bearer(),
          params: { path: { id: account } },
          fetch,
        }),
      'idempotent',
      options,
    );
  }

  /** An erasure's record: its counts so far, and when it finished. */
  erasure(id: string, options?: CallOptions) {
    return this.caller.data(
      (fetch) =>
        this.caller.http.GET('/api/admin/erasures/{id}', {
          headers: this.caller.bearer(),
          params: { path: { id } },
          fetch,
        }),
      'idempotent',
      options,
    );
  }
}
