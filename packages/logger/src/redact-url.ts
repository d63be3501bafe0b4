import { REDACTION_CENSOR } from './redaction.js';

/**
 * Query parameters whose values are credentials (names compared in lower case): a client
 * may put its API key in a URL, and a webhook endpoint's URL may carry its receiver's token.
 */
export const CREDENTIAL_QUERY_PARAMETERS: ReadonlySet<string> = new Set([
  'key',
  'api_key',
  'token',
  'access_token',
  'secret',
  'password',
]);

/**
 * The URL, absolute or a request's path, with the value of each credential query
 * parameter replaced by the censor. Everything else is left byte for byte, so that the
 * line still says which request it was: `/api/items?key=[redacted]&page=2`.
 */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  const fragmentStart = url.indexOf('#');
  if (queryStart === -1 || (fragmentStart !== -1 && fragmentStart < queryStart)) return url;
  const queryEnd = fragmentStart === -1 ? url.length : fragmentStart;
  const pairs = url
    .slice(queryStart + 1, queryEnd)
    .split('&')
    .map(redactPair);
  return `${url.slice(0, queryStart + 1)}${pairs.join('&')}${url.slice(queryEnd)}`;
}

function redactPair(pair: string): string {
  const equals = pair.indexOf('=');
  if (equals === -1) return pair;
  // Decoded as the server reading it would (`%6Bey`, `api%5Fkey` are `key`, `api_key`);
  // re-encoding the whole query instead would make the rest of it harder to read.
  const [name] = new URLSearchParams(pair).keys();
  if (name === undefined || !CREDENTIAL_QUERY_PARAMETERS.has(name.toLowerCase())) return pair;
  return `${pair.slice(0, equals)}=${REDACTION_CENSOR}`;
}
