import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses a webhook may reach. Only globally routable unicast is allowed: ipaddr.js `range()` names every
 * special-purpose block (IANA IPv4/IPv6 special-purpose registries), so anything other than `unicast` is refused —
 * loopback, RFC 1918 `private`, `linkLocal`, `carrierGradeNat` (100.64/10), `multicast`, `reserved`,
 * `unspecified`, `uniqueLocal` (fc00::/7), `ipv4Mapped` (::ffff:a.b.c.d), `rfc6052` (NAT64 64:ff9b::/96),
 * `6to4`/`teredo` (which tunnel to an embedded IPv4), benchmarking, and the rest.
 */
export type AddressVerdict = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

/** An explicit allow-list (hosts and CIDRs), meant only for tests that run a local HTTPS receiver. */
export interface SsrfAllowList {
  /** Host names allowed as is (lower case, no port). */
  readonly hosts?: readonly string[];
  /** CIDRs (or single addresses) whose addresses are allowed even though they are not public. */
  readonly cidrs?: readonly string[];
}

export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(stripBrackets(host));
}

export function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

export function classifyAddress(address: string, allow: SsrfAllowList = {}): AddressVerdict {
  const text = stripBrackets(address);
  if (!ipaddr.isValid(text)) return { allowed: false, reason: `${address} is not an IP address` };
  const ip = ipaddr.parse(text);
  if (inAllowedCidr(ip, allow)) return { allowed: true };
  const range = ip.range();
  if (range === 'unicast') return { allowed: true };
  return { allowed: false, reason: `${address} is a ${describe(range)} address` };
}

function inAllowedCidr(ip: ipaddr.IPv4 | ipaddr.IPv6, allow: SsrfAllowList): boolean {
  for (const cidr of allow.cidrs ?? []) {
    const [net, bits] = cidr.includes('/') ? ipaddr.parseCIDR(cidr) : [ipaddr.parse(cidr), ipaddr.parse(cidr).kind() === 'ipv4' ? 32 : 128];
    if (net.kind() === ip.kind() && ip.match(net as never, bits)) return true;
  }
  return false;
}

const NAMES: Record<string, string> = {
  loopback: 'loopback',
  private: 'private (RFC 1918)',
  uniqueLocal: 'private (fc00::/7 unique-local)',
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  multicast: 'multicast',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  reserved: 'reserved',
  ipv4Mapped: 'IPv4-mapped IPv6',
  rfc6145: 'IPv4-translated IPv6',
  rfc6052: 'NAT64 (64:ff9b::/96)',
  '6to4': '6to4',
  teredo: 'Teredo',
};

function describe(range: string): string {
  return NAMES[range] ?? `non-public (${range})`;
}

/** Validates allow-list entries at startup so a typo fails loudly instead of silently allowing nothing. */
export function assertValidAllowList(allow: SsrfAllowList): void {
  for (const cidr of allow.cidrs ?? []) {
    if (!ipaddr.isValid(cidr) && !ipaddr.isValidCIDR(cidr)) throw new Error(`invalid SSRF allow-list CIDR: ${cidr}`);
  }
}
