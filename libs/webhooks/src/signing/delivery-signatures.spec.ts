import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { deliveryHeaders, standardWebhookSignature, svcSignature, verifySvcSignature } from './delivery-signatures';

describe('delivery signatures', () => {
  const secret = 'whsec_a1b2c3d4e5f6g7h8i9j0';
  const body = '{"event":"pool_created","timestamp":"2026-01-01T00:00:00.000Z","delivery_id":"dlv_1","data":{"a":1}}';

  it('X-Svc-Signature is sha256= + lowercase hex HMAC-SHA256 of the raw body', () => {
    const sig = svcSignature(secret, body);
    expect(sig).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(sig).toBe(`sha256=${createHmac('sha256', secret).update(Buffer.from(body)).digest('hex')}`);
    // No whitespace normalisation: the same JSON re-serialised differently does not verify.
    expect(verifySvcSignature(secret, body, sig)).toBe(true);
    expect(verifySvcSignature(secret, JSON.stringify(JSON.parse(body), null, 1), sig)).toBe(false);
    expect(verifySvcSignature('another-secret-value', body, sig)).toBe(false);
    expect(verifySvcSignature(secret, body, undefined)).toBe(false);
  });

  it('matches a known HMAC-SHA256 vector (RFC 4231 test case 2)', () => {
    expect(svcSignature('Jefe', 'what do ya want for nothing?')).toBe('sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });

  it('the Standard Webhooks signature verifies with the reference library (raw-secret key)', () => {
    const ts = 1_767_225_600;
    const headers = deliveryHeaders({ secret, event: 'pool_created', deliveryId: 'dlv_abc', body, timestampSeconds: ts });
    expect(headers['webhook-id']).toBe('dlv_abc');
    expect(headers['x-svc-delivery']).toBe('dlv_abc');
    expect(headers['webhook-timestamp']).toBe(String(ts));
    expect(headers['x-svc-timestamp']).toBe(String(ts));
    expect(headers['webhook-signature']).toBe(standardWebhookSignature(secret, 'dlv_abc', ts, body));
    const wh = new Webhook(secret, { format: 'raw' });
    // The library checks the timestamp against its clock (5 min tolerance), so sign with "now" for the check.
    const now = Math.floor(Date.now() / 1000);
    const live = deliveryHeaders({ secret, event: 'pool_created', deliveryId: 'dlv_abc', body, timestampSeconds: now });
    expect(wh.verify(body, live)).toEqual(JSON.parse(body));
    expect(() => wh.verify(body.replace('"a":1', '"a":2'), live)).toThrow();
    expect(() => new Webhook('x'.repeat(20), { format: 'raw' }).verify(body, live)).toThrow();
  });

  it('keys the Standard Webhooks signature with the UTF-8 bytes of the secret, non-ASCII secrets too', () => {
    const unicode = 'sécret-ünïcode-ключ-1234';
    const now = Math.floor(Date.now() / 1000);
    const live = deliveryHeaders({ secret: unicode, event: 'pool_created', deliveryId: 'dlv_u', body, timestampSeconds: now });
    // The reference library takes a raw string's char codes as bytes; the UTF-8 bytes are given as a Uint8Array.
    expect(new Webhook(new TextEncoder().encode(unicode), { format: 'raw' }).verify(body, live)).toEqual(JSON.parse(body));
    const bytes = createHmac('sha256', Buffer.from(unicode, 'utf8')).update(`dlv_u.${now}.${body}`).digest('base64');
    expect(live['webhook-signature']).toBe(`v1,${bytes}`);
  });
});
