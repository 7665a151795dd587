import { AppError } from '@dob/domain';
import { DeciderSpec } from '../../../domain/src/testing/decider-specification';
import { decideCreateKey, decideRevokeKey, decideRotateKey, decideSetRateLimit, emptyWallet, evolve, MAX_ACTIVE_KEYS } from './wallet-keys.aggregate';
import type { WalletEvent } from './wallet.events';

const WALLET = 'G'.padEnd(56, 'W');
const at = '2026-03-10T12:00:00.000Z';
const material = (n: number) => ({ hash: String(n).padStart(64, '0'), prefix: `svc_ak_${n}`, last4: String(n).padStart(4, '0') });
const created = (n: number): WalletEvent => ({
  type: 'ApiKeyCreated',
  data: {
    wallet: WALLET,
    key_id: `key-${n}`,
    key_hash: material(n).hash,
    key_prefix: material(n).prefix,
    key_last4: material(n).last4,
    label: `key ${n}`,
    scopes: ['read'],
    rate_limit_rpm: 60,
    origin: 'key_management',
    created_at: at,
  },
});
const revoked = (n: number): WalletEvent => ({ type: 'ApiKeyRevoked', data: { wallet: WALLET, key_id: `key-${n}`, revoked_at: at } });

const spec = DeciderSpec.for({ initial: () => emptyWallet(WALLET), evolve });
const create = (n: number) => (s: Parameters<typeof decideCreateKey>[0]) =>
  decideCreateKey(s, { keyId: `key-${n}`, material: material(n), label: `key ${n}`, scopes: ['read'], origin: 'key_management', at });

describe('wallet keys aggregate', () => {
  it('given no keys, when a key is created, then ApiKeyCreated with the default rate limit', () => {
    spec
      .given()
      .when(create(1))
      .then([created(1)]);
  });

  it(`given ${MAX_ACTIVE_KEYS} active keys, when another is created, then it is refused`, () => {
    const ten = Array.from({ length: MAX_ACTIVE_KEYS }, (_, i) => created(i + 1));
    spec
      .given(...ten)
      .when(create(11))
      .thenThrows(AppError);
  });

  it(`given ${MAX_ACTIVE_KEYS} keys one of them revoked, when another is created, then it is allowed`, () => {
    const ten = Array.from({ length: MAX_ACTIVE_KEYS }, (_, i) => created(i + 1));
    spec
      .given(...ten, revoked(3))
      .when(create(11))
      .then([created(11)]);
  });

  it('given a revoked key, when it is revoked again, then nothing is decided (a retry is safe)', () => {
    spec
      .given(created(1), revoked(1))
      .when((s) => decideRevokeKey(s, { keyId: 'key-1', at }))
      .then([]);
  });

  it('given a revoked key, when it is rotated, then it is not found', () => {
    spec
      .given(created(1), revoked(1))
      .when((s) => decideRotateKey(s, { keyId: 'key-1', material: material(2), at }))
      .thenThrows('revoked');
  });

  it('given a key at 60 rpm, when its limit is set to the enhanced tier, then ApiKeyRateLimitSet; setting it again decides nothing', () => {
    const raised: WalletEvent = { type: 'ApiKeyRateLimitSet', data: { wallet: WALLET, key_id: 'key-1', rate_limit_rpm: 300, set_at: at } };
    spec
      .given(created(1))
      .when((s) => decideSetRateLimit(s, { keyId: 'key-1', rpm: 300, at }))
      .then([raised]);
    spec
      .given(created(1), raised)
      .when((s) => decideSetRateLimit(s, { keyId: 'key-1', rpm: 300, at }))
      .then([]);
  });
});
