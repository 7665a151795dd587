import { AppError } from '@dob/domain';
import { generateApiKey } from '../keys/api-key';
import { newKeyId } from '../keys/key-id';
import {
  activeKeys,
  decideCreateKey,
  decideRevokeKey,
  decideRotateKey,
  decideSetRateLimit,
  emptyWallet,
  evolve,
  MAX_ACTIVE_KEYS,
  type WalletKeys,
} from './wallet-keys.aggregate';
import { ApiKeyCreated, ApiKeyRevoked, ApiKeyRotated, ApiKeyRateLimitSet, type WalletEvent } from './wallet.events';

const WALLET = 'GBDM6KRXZ5VV2PZVYOCMUEEG5DMTQQ3JOVTKHN2UWKNC7JU6P2YIUVY4'.slice(0, 56);
const at = '2026-03-10T12:00:00.000Z';

function valid(e: WalletEvent): WalletEvent {
  const def = { ApiKeyCreated, ApiKeyRevoked, ApiKeyRotated, ApiKeyRateLimitSet }[e.type];
  expect(def.schema.safeParse(e.data).success).toBe(true);
  return e;
}

function withKeys(n: number): { state: WalletKeys; ids: string[] } {
  let state = emptyWallet(WALLET);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const keyId = newKeyId();
    ids.push(keyId);
    const e = decideCreateKey(state, { keyId, material: generateApiKey(), label: `k${i}`, scopes: ['read'], origin: 'key_management', at });
    state = evolve(state, valid(e));
  }
  return { state, ids };
}

describe('wallet aggregate', () => {
  it('creates keys with default rpm 60, normalised scopes, and counts the stream version', () => {
    const e = decideCreateKey(emptyWallet(WALLET), {
      keyId: newKeyId(),
      material: generateApiKey(),
      label: 'bot',
      scopes: ['trade', 'read', 'read'],
      origin: 'register',
      at,
    });
    valid(e);
    expect(e.data).toMatchObject({ scopes: ['read', 'trade'], rate_limit_rpm: 60, label: 'bot' });
    expect(evolve(emptyWallet(WALLET), e).version).toBe(0);
  });

  it('refuses the 11th active key with VALIDATION_ERROR telling to revoke a key first, but allows it after a revoke', () => {
    const { state, ids } = withKeys(MAX_ACTIVE_KEYS);
    const attempt = () => decideCreateKey(state, { keyId: newKeyId(), material: generateApiKey(), label: 'x', scopes: ['read'], origin: 'key_management', at });
    expect(attempt).toThrow(AppError);
    try {
      attempt();
    } catch (e) {
      expect((e as AppError).code).toBe('VALIDATION_ERROR');
      expect((e as AppError).message).toMatch(/revoke a key first/);
    }
    const revoked = evolve(state, valid(decideRevokeKey(state, { keyId: ids[0]!, at })!));
    expect(activeKeys(revoked)).toHaveLength(MAX_ACTIVE_KEYS - 1);
    expect(() =>
      decideCreateKey(revoked, { keyId: newKeyId(), material: generateApiKey(), label: 'x', scopes: ['read'], origin: 'key_management', at }),
    ).not.toThrow();
  });

  it('validates labels and scopes', () => {
    const s = emptyWallet(WALLET);
    const make = (label: string, scopes: string[]) => () =>
      decideCreateKey(s, { keyId: newKeyId(), material: generateApiKey(), label, scopes, origin: 'key_management', at });
    expect(make('x'.repeat(65), ['read'])).toThrow(/at most 64/);
    expect(make('x'.repeat(64), ['read'])).not.toThrow();
    expect(make('', ['read'])).toThrow(/label is required/);
    expect(make('ok', [])).toThrow(/scopes/);
    expect(make('ok', ['admin'])).toThrow(/invalid scopes: admin/);
  });

  it('rotates: same key_id, label and scopes, new hash; revoked keys cannot be rotated', () => {
    const { state, ids } = withKeys(1);
    const before = state.keys.get(ids[0]!)!;
    const material = generateApiKey();
    const rotated = evolve(state, valid(decideRotateKey(state, { keyId: ids[0]!, material, at })));
    const after = rotated.keys.get(ids[0]!)!;
    expect(after).toMatchObject({ keyId: before.keyId, label: before.label, scopes: before.scopes, keyHash: material.hash, rotatedAt: at });
    expect(after.keyHash).not.toBe(before.keyHash);
    const revoked = evolve(rotated, decideRevokeKey(rotated, { keyId: ids[0]!, at })!);
    expect(() => decideRotateKey(revoked, { keyId: ids[0]!, material: generateApiKey(), at })).toThrow(/not found/);
  });

  it('revoking twice appends nothing the second time; unknown keys are NOT_FOUND', () => {
    const { state, ids } = withKeys(1);
    const revoked = evolve(state, decideRevokeKey(state, { keyId: ids[0]!, at })!);
    expect(decideRevokeKey(revoked, { keyId: ids[0]!, at: '2030-01-01T00:00:00.000Z' })).toBeNull();
    expect(() => decideRevokeKey(state, { keyId: newKeyId(), at })).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('sets the rate-limit tier: 60, 300 or 1000+, nothing else', () => {
    const { state, ids } = withKeys(1);
    const e = valid(decideSetRateLimit(state, { keyId: ids[0]!, rpm: 300, at })!);
    expect(evolve(state, e).keys.get(ids[0]!)!.rateLimitRpm).toBe(300);
    expect(decideSetRateLimit(state, { keyId: ids[0]!, rpm: 60, at })).toBeNull();
    expect(decideSetRateLimit(state, { keyId: ids[0]!, rpm: 5000, at })).not.toBeNull();
    for (const bad of [0, 59, 100, 999, 1.5]) {
      expect(() => decideSetRateLimit(state, { keyId: ids[0]!, rpm: bad, at })).toThrow(/rate_limit_rpm/);
    }
  });
});
