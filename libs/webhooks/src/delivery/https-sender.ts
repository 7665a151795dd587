import { Agent, request } from 'node:https';
import { createSecureContext, rootCertificates } from 'node:tls';
import type { DestinationGuard } from '../ssrf/destination-guard';
import { describeFailure, reasonOfError, type FailureReason } from './failure-reason';

export interface SendResult {
  /** 2xx within the timeout. */
  readonly ok: boolean;
  readonly responseCode: number | null;
  readonly durationMs: number;
  /** `<reason>: <message>` for a failure before any answer, `HTTP <code>` / redirect otherwise; null on success. */
  readonly error: string | null;
  /** Why it failed (absent on success, and from senders that do not classify). */
  readonly reason?: FailureReason;
}

export interface WebhookSender {
  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult>;
  /** Closes pooled connections. */
  close?(): void;
}

export interface HttpsSenderOptions {
  readonly guard: DestinationGuard;
  /** Spec: the receiver must answer 2xx within 10 seconds. */
  readonly timeoutMs?: number;
  /** Extra trusted CA certificates (PEM), e.g. a test receiver's self-signed certificate. */
  readonly ca?: string | readonly string[];
}

/**
 * POSTs one delivery with node:https. Every connection goes through the guard's `lookup` (resolve → check → connect
 * to the checked address); IP-literal hosts are checked before connecting. No agent keep-alive across webhooks is
 * needed for correctness, but one keep-alive agent saves a TLS handshake per delivery to the same receiver (a
 * pooled socket stays connected to the address that was checked when it opened). Redirects are not followed
 * (node's https never follows them), and a 3xx is a failure.
 */
export function createHttpsSender(options: HttpsSenderOptions): WebhookSender {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const ca = options.ca ? (Array.isArray(options.ca) ? [...options.ca] : [options.ca as string]) : undefined;
  const agent = new Agent({
    keepAlive: true,
    maxSockets: 64,
    lookup: options.guard.lookup,
    // Extra CAs as one secure context made once, not as `ca`: the agent names its socket pools by concatenating
    // every TLS option on each request (node:https getName), and ~140 root certificates made that a quarter of the
    // notifier's CPU in the webhooks benchmark (docs/benchmarks-journal.md).
    secureContext: ca ? createSecureContext({ ca: [...rootCertificates, ...ca] }) : undefined,
  });
  return {
    close: () => agent.destroy(),
    send(url, headers, body) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      return new Promise<SendResult>((resolve) => {
        let settled = false;
        const timeout: { timer?: NodeJS.Timeout } = {};
        const finish = (r: SendResult) => {
          if (settled) return;
          settled = true;
          clearTimeout(timeout.timer);
          resolve(r);
        };
        let target: URL;
        try {
          target = new URL(url);
          if (target.protocol !== 'https:') throw new Error('url must use HTTPS');
          options.guard.assertConnectHost(target.hostname);
        } catch (e) {
          const reason = reasonOfError(e);
          finish({ ok: false, responseCode: null, durationMs: elapsed(), reason, error: describeFailure(reason, (e as Error).message) });
          return;
        }
        const payload = Buffer.from(body, 'utf8');
        const req = request(
          target,
          {
            method: 'POST',
            headers: { ...headers, 'content-length': String(payload.length) },
            agent,
          },
          (res) => {
            const code = res.statusCode ?? 0;
            res.resume(); // the response body is ignored (docs/agent-api.md#webhooks); drain it so the socket closes
            res.on('end', () => {
              const ok = code >= 200 && code < 300;
              const redirect = code >= 300 && code < 400;
              finish({
                ok,
                responseCode: code,
                durationMs: elapsed(),
                ...(ok ? {} : { reason: redirect ? ('redirect' as const) : ('http' as const) }),
                error: ok ? null : redirect ? `redirect ${code} not followed` : `HTTP ${code}`,
              });
            });
            res.on('error', (e) => finish({ ok: false, responseCode: code, durationMs: elapsed(), reason: 'http', error: `HTTP ${code}, body: ${e.message}` }));
          },
        );
        timeout.timer = setTimeout(() => {
          finish({ ok: false, responseCode: null, durationMs: elapsed(), reason: 'timeout', error: `timeout: no response within ${timeoutMs} ms` });
          req.destroy();
        }, timeoutMs);
        req.on('error', (e) => {
          const reason = reasonOfError(e);
          finish({ ok: false, responseCode: null, durationMs: elapsed(), reason, error: describeFailure(reason, e.message) });
        });
        req.end(payload);
      });
    },
  };
}
