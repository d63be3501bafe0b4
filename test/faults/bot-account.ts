// A fresh account per scenario, with API keys, made over HTTP as a publisher would.
import { randomBytes } from 'node:crypto';

export interface BotAccount {
  id: string;
  apiKeys: string[];
}

async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Registers an account and creates `keys` API keys with the publishing scope. */
export async function createBotAccount(
  baseUrl: string,
  tag: string,
  keys: number,
): Promise<BotAccount> {
  const suffix = randomBytes(5).toString('hex');
  const registered = await postJson(`${baseUrl}/api/auth/register`, {
    email: `bot-${suffix}@${tag}.faults.test`,
    password: `pw-${randomBytes(12).toString('base64url')}`,
    handle: `bot_${suffix}`,
    name: `Fault bot ${tag}`,
  });
  const token = String(registered.token);
  const account = registered.account as { id: string };
  const apiKeys: string[] = [];
  for (let i = 0; i < keys; i += 1) {
    const created = await postJson(
      `${baseUrl}/api/webhooks/api-keys`,
      { name: `bot-${i}`, scopes: ['content:create'] },
      { authorization: `Bearer ${token}` },
    );
    apiKeys.push(String(created.key));
  }
  return { id: account.id, apiKeys };
}
