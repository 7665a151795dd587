import { API_KEY_LENGTH, API_KEY_PREFIX, generateApiKey, hashApiKey, isWellFormedApiKey, maskApiKey } from './api-key';
import { base62 } from './base62';
import { KEY_ID_PATTERN, newKeyId } from './key-id';

describe('API key format', () => {
  it('is svc_ak_ + 33 base62 random chars + a 6-char checksum, hashed with SHA-256', () => {
    const k = generateApiKey();
    expect(k.key).toMatch(/^svc_ak_[0-9A-Za-z]{39}$/);
    expect(k.key).toHaveLength(API_KEY_LENGTH);
    expect(k.hash).toBe(hashApiKey(k.key));
    expect(k.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(k.prefix).toBe(k.key.slice(0, 11));
    expect(k.last4).toBe(k.key.slice(-4));
    expect(isWellFormedApiKey(k.key)).toBe(true);
  });

  it('carries at least 128 random bits (no two keys alike, characters spread over the alphabet)', () => {
    const keys = Array.from({ length: 2000 }, () => generateApiKey().key);
    expect(new Set(keys).size).toBe(keys.length);
    const firstChars = new Set(keys.map((k) => k[API_KEY_PREFIX.length + 5]));
    expect(firstChars.size).toBeGreaterThan(50);
    expect(Math.log2(62) * 33).toBeGreaterThanOrEqual(192);
  });

  it('rejects a key whose checksum does not match (a single changed character)', () => {
    const { key } = generateApiKey();
    const i = API_KEY_PREFIX.length + 10;
    const swapped = key.slice(0, i) + (key[i] === 'a' ? 'b' : 'a') + key.slice(i + 1);
    expect(isWellFormedApiKey(swapped)).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey('dob_ak_' + key.slice(7))).toBe(false);
    expect(isWellFormedApiKey(key.replace(/.$/, '-'))).toBe(false);
  });

  it('masks as prefix + … + last four', () => {
    expect(maskApiKey('svc_ak_Ab12', 'wxYZ')).toBe('svc_ak_Ab12…wxYZ');
  });

  it('encodes base62 with fixed width', () => {
    expect(base62(0, 3)).toBe('000');
    expect(base62(61, 2)).toBe('0z');
    expect(base62(62, 2)).toBe('10');
    expect(base62(new Uint8Array([0xff, 0xff]), 3)).toBe('H31');
    expect(() => base62(62 * 62, 2)).toThrow(RangeError);
  });

  it('makes key ids ak_ + ULID, ordered by time', () => {
    const a = newKeyId(1_700_000_000_000);
    const b = newKeyId(1_700_000_000_001);
    expect(a).toMatch(KEY_ID_PATTERN);
    expect(a.slice(0, 13) < b.slice(0, 13)).toBe(true);
  });
});
