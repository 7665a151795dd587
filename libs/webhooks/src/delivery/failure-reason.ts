import { UnsafeDestinationError } from '../ssrf/destination-guard';

/**
 * Why an attempt failed, for the attempt log (`<reason>: <message>`) and the notifier's health counters: a key
 * that cannot open the secret, DNS, the SSRF guard refusing at connect, TLS, the TCP connect, the 10 s timeout, or
 * the receiver's answer (non-2xx, 3xx never followed).
 */
export const FAILURE_REASONS = ['decrypt', 'dns', 'ssrf', 'tls', 'connect', 'timeout', 'http', 'redirect', 'other'] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME']);
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED']);

/** Node's socket / TLS / DNS errors by their `code` (node:net, node:tls and OpenSSL verify codes). */
export function reasonOfError(e: unknown): FailureReason {
  if (e instanceof UnsafeDestinationError) return 'ssrf';
  const code = String((e as NodeJS.ErrnoException | undefined)?.code ?? '');
  if (DNS_CODES.has(code)) return 'dns';
  if (CONNECT_CODES.has(code)) return 'connect';
  if (
    /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/.test(code) ||
    /\bTLS\b|certificate|SSL/i.test(String((e as Error)?.message))
  ) {
    return 'tls';
  }
  return 'other';
}

export function describeFailure(reason: FailureReason, message: string): string {
  return reason === 'http' || reason === 'redirect' ? message : `${reason}: ${message}`;
}
