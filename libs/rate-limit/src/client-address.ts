import ipaddr from 'ipaddr.js';

/**
 * The part of a client address that one client controls, used as its rate-limit and connection bucket: the whole
 * IPv4 address, but only the /64 prefix of an IPv6 one. A single subscriber is routinely given a /64 (RFC 6177,
 * RIPE-690) and may pick any of its 2^64 addresses, so per-/128 buckets would give one client unlimited budgets.
 * An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, what a dual-stack socket reports for IPv4) is its IPv4 address.
 * Anything unparsable is its own bucket (it still counts, it just shares with nobody).
 */
export function clientBucketOf(address: string): string {
  if (!address.includes(':')) return address; // IPv4 (the common case): no parsing, no allocation
  let parsed: ipaddr.IPv6 | ipaddr.IPv4;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return address;
  }
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const p = v6.parts;
  return `${p[0].toString(16)}:${p[1].toString(16)}:${p[2].toString(16)}:${p[3].toString(16)}::/64`;
}
