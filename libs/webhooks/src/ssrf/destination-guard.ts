import { BoundedMemo } from '@dob/runtime';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { classifyAddress, isIpLiteral, stripBrackets, type SsrfAllowList } from './address-policy';

/** Resolves a host to every address (A and AAAA), like the connect path's dns.lookup does. */
export type ResolveAll = (host: string) => Promise<LookupAddress[]>;

export const systemResolveAll: ResolveAll = (host) =>
  new Promise((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/** What a registration answers about any host it refuses: never what DNS answered or which internal range it is in. */
export const NOT_PUBLIC = 'url host is not a public address';

/**
 * A refused destination. `message` says why in full (attempt logs, operators' logs); `publicMessage` is what the
 * API may tell whoever registers the URL: a registration answer that named the addresses a host resolves to, or
 * told an internal name from a non-existent one, let anyone map the internal network through the API (issue 29).
 */
export class UnsafeDestinationError extends Error {
  override readonly name = 'UnsafeDestinationError';
  constructor(
    message: string,
    readonly publicMessage: string = message,
  ) {
    super(message);
  }
}

/**
 * SSRF defence for outbound webhooks (docs/decisions.md#d12; the approach Svix's smokescreen proxy takes): a URL is
 * checked when it is registered, and again at every connect, where the socket connects only to an address that was
 * just resolved AND checked — so a DNS answer that changes between the two (rebinding) cannot reach an internal
 * address. Redirects are never followed (the sender treats 3xx as failure).
 */
export class DestinationGuard {
  /**
   * Hosts `assertConnectHost` passed: a name, or an IP literal allowed. It runs before every request (keep-alive
   * sockets included), and parsing the host as an address each time was 4 % of the notifier's CPU in a burst; the
   * verdict depends only on the host and the allow list, both fixed. Bounded, emptied when full.
   */
  private readonly connectHostsPassed = new BoundedMemo<true>(1024);

  constructor(
    private readonly allow: SsrfAllowList = {},
    private readonly resolveAll: ResolveAll = systemResolveAll,
  ) {}

  /** Registration-time check: https, no credentials in the URL, the host (and each address it resolves to) public. */
  async checkUrl(raw: string): Promise<URL> {
    const url = parseHttpsUrl(raw);
    const host = stripBrackets(url.hostname).toLowerCase();
    if (this.hostAllowed(host)) return url;
    if (isIpLiteral(host)) {
      this.assertAddress(host);
      return url;
    }
    let addresses: LookupAddress[];
    try {
      addresses = await this.resolveAll(host);
    } catch {
      throw new UnsafeDestinationError(`url host ${host} does not resolve`, NOT_PUBLIC);
    }
    if (addresses.length === 0) throw new UnsafeDestinationError(`url host ${host} does not resolve`, NOT_PUBLIC);
    for (const a of addresses) this.assertAddress(a.address, host);
    return url;
  }

  /** Connect-time check of a URL's IP literal (net.connect does not call `lookup` for literals). */
  assertConnectHost(hostname: string): void {
    this.connectHostsPassed.get(hostname, () => {
      const host = stripBrackets(hostname).toLowerCase();
      if (isIpLiteral(host) && !this.hostAllowed(host)) this.assertAddress(host); // throws: nothing is kept
      return true;
    });
  }

  /**
   * A `lookup` for net/tls/https: resolves, refuses if ANY resolved address is not allowed, then hands the checked
   * addresses to the socket, which connects only to those.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    const host = hostname.toLowerCase();
    this.resolveAll(host).then(
      (addresses) => {
        try {
          if (!this.hostAllowed(host)) for (const a of addresses) this.assertAddress(a.address, host);
        } catch (e) {
          callback(e as NodeJS.ErrnoException, '', 4);
          return;
        }
        const family = typeof options === 'object' && options ? options.family : undefined;
        const usable = addresses.filter((a) => !family || family === 0 || a.family === family);
        if (usable.length === 0) {
          callback(Object.assign(new Error(`no address for ${host}`), { code: 'ENOTFOUND' }), '', 4);
          return;
        }
        if (typeof options === 'object' && options && options.all) {
          (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
        } else {
          callback(null, usable[0].address, usable[0].family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 4),
    );
  };

  private hostAllowed(host: string): boolean {
    return (this.allow.hosts ?? []).some((h) => h.toLowerCase() === host);
  }

  private assertAddress(address: string, host?: string): void {
    const verdict = classifyAddress(address, this.allow);
    if (!verdict.allowed) {
      throw new UnsafeDestinationError(host ? `url host ${host} resolves to ${verdict.reason}` : `url host ${verdict.reason}`, NOT_PUBLIC);
    }
  }
}

export function parseHttpsUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeDestinationError('url must be a valid absolute URL');
  }
  if (url.protocol !== 'https:') throw new UnsafeDestinationError('url must use HTTPS');
  if (url.username || url.password) throw new UnsafeDestinationError('url must not carry credentials');
  return url;
}
