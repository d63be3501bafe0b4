// Publisher accounts and their keys, made over HTTP as a publisher would (README,
// "Accounts"), before anything is measured.
import { randomBytes } from 'node:crypto';
import type { BenchKey } from './event-mix.js';

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  if (response.status !== 201)
    throw new Error(`POST ${url}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** `accounts` accounts with `keysEach` content:create keys each, keys interleaved by account. */
export async function createBenchKeys(
  baseUrl: string,
  accounts: number,
  keysEach: number,
): Promise<BenchKey[]> {
  const perAccount = await Promise.all(
    Array.from({ length: accounts }, async (_, a) => {
      const suffix = randomBytes(4).toString('hex');
      const registered = await postJson(`${baseUrl}/api/auth/register`, {
        email: `bench-${a}-${suffix}@bench.example`,
        password: `pw-${randomBytes(12).toString('base64url')}`,
        handle: `bench_${a}_${suffix}`,
        name: `Bench publisher ${a}`,
      });
      const accountId = String((registered.account as { id: unknown }).id);
      const authorization = `Bearer ${String(registered.token)}`;
      const keys: BenchKey[] = [];
      for (let k = 0; k < keysEach; k += 1) {
        const created = await postJson(
          `${baseUrl}/api/webhooks/api-keys`,
          { name: `bench-${k}`, scopes: ['content:create'] },
          { authorization },
        );
        keys.push({ key: String(created.key), accountId });
      }
      return keys;
    }),
  );
  // Round robin over keys then visits every account in turn.
  return Array.from({ length: keysEach }, (_, k) =>
    perAccount.flatMap((keys) => keys[k] ?? []),
  ).flat();
}
