import type { Server } from 'node:net';
import ipaddr from 'ipaddr.js';
import { clientBucketOf } from '@dob/rate-limit';

/**
 * How long the API waits for a client, and how many connections one client may hold (docs/operations.md#timeouts).
 * A JSON API's requests are small (BODY_LIMIT_BYTES) and arrive in milliseconds: these bounds are seconds, so a
 * client that opens connections and then sends nothing, or declares a body and never sends it, cannot hold them.
 */
export interface HttpLimits {
  /** Whole request (headers and body) must arrive within this (Node's server.requestTimeout; 408 when exceeded). */
  readonly requestTimeoutMs: number;
  /** Headers must arrive within this (Node's server.headersTimeout; ≤ requestTimeoutMs). */
  readonly headersTimeoutMs: number;
  /** An idle kept-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number;
  /** Open connections per client address (IPv6 per /64); trusted proxies are exempt. */
  readonly connectionsPerClient: number;
  /** Addresses or CIDRs of reverse proxies whose X-Forwarded-For is believed; empty = none (the socket's address). */
  readonly trustedProxies: readonly string[];
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  requestTimeoutMs: 10_000,
  headersTimeoutMs: 5_000,
  keepAliveTimeoutMs: 5_000,
  connectionsPerClient: 128,
  trustedProxies: [],
};

/**
 * Node checks the request and headers timeouts on a timer (server option connectionsCheckingInterval, 30 s by
 * default), so a stalled request would live up to 30 s past its timeout; checked every second instead.
 * Node docs: http.createServer options, server.requestTimeout, server.headersTimeout.
 */
const TIMEOUT_CHECK_MS = 1_000;

/** The Fastify options that apply HttpLimits (Fastify docs: Server → requestTimeout, keepAliveTimeout, http, trustProxy). */
export function httpLimitOptions(limits: HttpLimits) {
  const headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: { headersTimeout, requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, limits.requestTimeoutMs) },
    trustProxy: limits.trustedProxies.length > 0 ? [...limits.trustedProxies] : false,
  };
}

/** Whether `address` is one of the trusted proxies (addresses or CIDRs, as the configuration validated them). */
export function trustedProxyMatcher(proxies: readonly string[]): (address: string) => boolean {
  const ranges = proxies.map((p) => (p.includes('/') ? ipaddr.parseCIDR(p) : ipaddr.parseCIDR(`${p}/${ipaddr.parse(p).kind() === 'ipv4' ? 32 : 128}`)));
  if (ranges.length === 0) return () => false;
  return (address) => {
    if (!ipaddr.isValid(address)) return false;
    const parsed = ipaddr.process(address); // ::ffff:a.b.c.d → a.b.c.d
    return ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
  };
}

/**
 * Refuses a client's connection beyond `connectionsPerClient` open ones (closed at once, before any byte is read),
 * counted per clientBucketOf(socket address), so one host cannot take every socket the process can hold. The
 * trusted proxies are not counted: all their clients share their address (the rate limits see the forwarded one).
 */
export function capConnectionsPerClient(server: Server, limits: HttpLimits): void {
  const open = new Map<string, number>();
  const trusted = trustedProxyMatcher(limits.trustedProxies);
  server.on('connection', (socket) => {
    const address = socket.remoteAddress;
    if (address === undefined || trusted(address)) return;
    const bucket = clientBucketOf(address);
    const count = open.get(bucket) ?? 0;
    if (count >= limits.connectionsPerClient) {
      socket.destroy();
      return;
    }
    open.set(bucket, count + 1);
    socket.once('close', () => {
      const left = (open.get(bucket) ?? 1) - 1;
      if (left === 0) open.delete(bucket);
      else open.set(bucket, left);
    });
  });
}
