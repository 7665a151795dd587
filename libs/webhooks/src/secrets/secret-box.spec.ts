import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecretBox, loadOrCreateKeyFile, parseSecretKey } from './secret-box';

describe('secret box (AES-256-GCM)', () => {
  const box = createSecretBox(Buffer.alloc(32, 7));

  it('round-trips, never stores the plaintext, and uses a fresh IV each time', () => {
    const a = box.seal('my-webhook-secret-123', 'wh_1');
    const b = box.seal('my-webhook-secret-123', 'wh_1');
    expect(a).not.toContain('my-webhook-secret');
    expect(a).not.toBe(b);
    expect(box.open(a, 'wh_1')).toBe('my-webhook-secret-123');
  });

  it('refuses a ciphertext moved to another webhook, a tampered one, or another key', () => {
    const sealed = box.seal('my-webhook-secret-123', 'wh_1');
    expect(() => box.open(sealed, 'wh_2')).toThrow();
    const parts = sealed.split('.');
    // Flip one bit of the ciphertext (a fixed replacement byte left it unchanged 1 time in 256: a CI flake).
    const tampered = Buffer.from(parts[3], 'base64url');
    tampered[0] ^= 0x01;
    parts[3] = tampered.toString('base64url');
    expect(() => box.open(parts.join('.'), 'wh_1')).toThrow();
    expect(() => createSecretBox(Buffer.alloc(32, 8)).open(sealed, 'wh_1')).toThrow();
  });

  it('creates the key file once with mode 0600 and reuses it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'whkey-'));
    const path = join(dir, 'nested', 'webhook-secret.key');
    const k1 = loadOrCreateKeyFile(path);
    const k2 = loadOrCreateKeyFile(path);
    expect(k1.equals(k2)).toBe(true);
    expect(k1.length).toBe(32);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(parseSecretKey(readFileSync(path, 'utf8')).equals(k1)).toBe(true);
  });

  it('rejects keys that are not 32 bytes', () => {
    expect(() => parseSecretKey('abcd')).toThrow(/32 bytes/);
    expect(() => createSecretBox(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});
