import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * Where outgoing webhooks may go. A subscriber's URL is someone else's input, and the
 * worker that fetches it sits inside our network: without these checks an endpoint could
 * make us call our own database, Redis, admin ports or a cloud metadata service.
 */
export interface TargetPolicy {
  /** Plain http (WEBHOOK_ALLOW_HTTP): for local development and tests only. */
  allowHttp: boolean;
  /** WEBHOOK_ALLOWED_PRIVATE_HOSTS: hosts and ranges a deployment may deliver to although private. */
  allowedPrivate: AllowedPrivate;
}

export interface AllowedPrivate {
  /** Host names as written in URLs, lower-case. */
  hosts: ReadonlySet<string>;
  ranges: ReadonlyArray<[Address, number]>;
}

/** Whether `entry` is something WEBHOOK_ALLOWED_PRIVATE_HOSTS can hold: a CIDR, an address or a host name. */
export function isAllowedPrivateEntry(entry: string): boolean {
  return ipaddr.isValidCIDR(entry) || ipaddr.isValid(entry) || HOST_NAME.test(entry);
}

/** A host name as compared: lower case, without the trailing dot that names the same host. */
const hostKey = (host: string): string => host.toLowerCase().replace(/\.$/, '');

const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** The allowance from WEBHOOK_ALLOWED_PRIVATE_HOSTS' entries (each checked by isAllowedPrivateEntry). */
export function allowedPrivateOf(entries: readonly string[]): AllowedPrivate {
  const hosts = new Set<string>();
  const ranges: Array<[Address, number]> = [];
  for (const entry of entries) {
    if (ipaddr.isValidCIDR(entry)) ranges.push(ipaddr.parseCIDR(entry));
    else if (ipaddr.isValid(entry)) {
      const address = ipaddr.parse(entry);
      ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else hosts.add(hostKey(entry));
  }
  return { hosts, ranges };
}

/**
 * Addresses of cloud metadata services (AWS, GCP and Azure at 169.254.169.254, AWS over
 * IPv6, Alibaba): named apart because they are what an SSRF is usually after; their
 * ranges (link-local, unique local, CGNAT) are refused anyway.
 */
const CLOUD_METADATA = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);

/** ipaddr.js's names of the ranges we refuse, as an attempt's recorded reason says them. */
const RANGE_NAMES: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  private: 'private',
  reserved: 'reserved',
  uniqueLocal: 'unique local (private IPv6)',
  ipv4Mapped: 'IPv4-mapped IPv6',
  rfc6052: 'NAT64 (64:ff9b::/96)',
  rfc6145: 'IPv4-translated IPv6',
  '6to4': '6to4 (carries an IPv4 address)',
  teredo: 'Teredo (carries an IPv4 address)',
};

function isAllowedPrivate(address: Address, host: string | undefined, policy: TargetPolicy) {
  const { hosts, ranges } = policy.allowedPrivate;
  if (host !== undefined && hosts.has(hostKey(host))) return true;
  return ranges.some(
    ([range, bits]) => range.kind() === address.kind() && address.match(range, bits),
  );
}

/**
 * Why a delivery must not go to `address` (what `host` resolved to, or a literal in the
 * URL), or null when it may: only public unicast addresses are reached, unless the
 * deployment allows the host or the address. Checked on every attempt, after resolution,
 * so a host that resolves elsewhere the second time (DNS rebinding) is caught.
 */
export function addressRefusal(
  address: string,
  policy: TargetPolicy,
  host?: string,
): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const parsed = ipaddr.parse(address);
  const range = parsed.range();
  if (range === 'unicast' || isAllowedPrivate(parsed, host, policy)) return null;
  const shown = parsed.toString();
  if (CLOUD_METADATA.has(shown)) {
    return `${shown} is a cloud metadata address`;
  }
  return `${shown} is a ${RANGE_NAMES[range] ?? range} address`;
}

/** A URL host as an address when it is one: `[::1]` is `::1`. */
const literalAddressOf = (hostname: string): string | undefined => {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) ? bare : undefined;
};

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * Whether an endpoint may be registered with this URL: absolute, https (http only where
 * allowed), no credentials in it, and not a literal refused address or a localhost name.
 * Host names are resolved only when delivering (addressRefusal): at registration a name
 * may not resolve yet, and what it resolves to may change.
 */
export function checkEndpointUrl(raw: string, policy: TargetPolicy): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'must be an absolute URL, such as https://example.com/hooks' };
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) {
    return {
      ok: false,
      reason: policy.allowHttp ? 'must use https or http' : 'must use https',
    };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'must not hold a user name or password' };
  }
  const host = hostKey(url.hostname);
  const literal = literalAddressOf(host);
  if (literal !== undefined) {
    const refusal = addressRefusal(literal, policy, host);
    return refusal === null
      ? { ok: true, url }
      : { ok: false, reason: `must not point at ${refusal}` };
  }
  const localName = host === 'localhost' || host.endsWith('.localhost');
  if (localName && !policy.allowedPrivate.hosts.has(host)) {
    return { ok: false, reason: 'must not point at localhost' };
  }
  return { ok: true, url };
}

/** The policy of a deployment's settings (WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOWED_PRIVATE_HOSTS). */
export const targetPolicyOf = (settings: {
  allowHttp: boolean;
  allowedPrivateHosts: readonly string[];
}): TargetPolicy => ({
  allowHttp: settings.allowHttp,
  allowedPrivate: allowedPrivateOf(settings.allowedPrivateHosts),
});
