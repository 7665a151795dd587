import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The two signature schemes every delivery carries.
 * - The Agent API's (docs/agent-api.md#webhooks): `X-Svc-Signature: sha256=<lowercase hex HMAC-SHA256(secret, raw body bytes)>` (agent-api.md
 *   "Delivery request"; same format as GitHub's X-Hub-Signature-256, so @octokit/webhooks-methods verifies it).
 * - Standard Webhooks (standardwebhooks.com spec): `webhook-id`, `webhook-timestamp` (unix seconds) and
 *   `webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`. Our secrets are plain strings, not
 *   `whsec_<base64>` keys, so the key is the secret's own bytes (the reference library's `{format: "raw"}`).
 */
export function svcSignature(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function standardWebhookSignature(secret: string, id: string, timestampSeconds: number, body: string | Buffer): string {
  // The secret's UTF-8 bytes are the key, given as the string: the same MAC as Buffer.from(secret, 'utf8'), but a
  // Buffer key cost node:crypto 18.6 µs a signature against 3.5 µs for a string (Node 24, 600-byte body).
  const mac = createHmac('sha256', secret).update(`${id}.${timestampSeconds}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

export interface DeliveryHeaderInput {
  readonly secret: string;
  readonly event: string;
  readonly deliveryId: string;
  readonly body: string;
  /** Unix seconds of this attempt. */
  readonly timestampSeconds: number;
}

/** Every header of one delivery attempt (the body is signed byte for byte as sent). */
export function deliveryHeaders(input: DeliveryHeaderInput): Record<string, string> {
  const ts = String(input.timestampSeconds);
  return {
    'content-type': 'application/json',
    'user-agent': 'dob-agent-webhooks/1',
    'x-svc-signature': svcSignature(input.secret, input.body),
    'x-svc-event': input.event,
    'x-svc-delivery': input.deliveryId,
    'x-svc-timestamp': ts,
    'webhook-id': input.deliveryId,
    'webhook-timestamp': ts,
    'webhook-signature': standardWebhookSignature(input.secret, input.deliveryId, input.timestampSeconds, input.body),
  };
}

/** Receiver-side check of X-Svc-Signature in constant time (what docs/agent-api.md#webhooks asks receivers to do). */
export function verifySvcSignature(secret: string, body: string | Buffer, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(svcSignature(secret, body));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
