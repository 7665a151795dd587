import { AppError } from '@dob/domain';
import type { WalletEvent } from './wallet.events';

export type Scope = 'read' | 'trade';
export const SCOPES: readonly Scope[] = ['read', 'trade'];
export const MAX_ACTIVE_KEYS = 10;
export const MAX_LABEL_LENGTH = 64;
export const DEFAULT_RATE_LIMIT_RPM = 60;

export interface WalletKey {
  readonly keyId: string;
  readonly keyHash: string;
  readonly keyPrefix: string;
  readonly keyLast4: string;
  readonly label: string;
  readonly scopes: readonly Scope[];
  readonly rateLimitRpm: number;
  readonly createdAt: string;
  readonly rotatedAt: string | null;
  readonly revokedAt: string | null;
}

/** The wallet aggregate: its API keys, folded from its stream. `version` is the stream revision (-1: empty). */
export interface WalletKeys {
  readonly wallet: string;
  readonly version: number;
  readonly keys: ReadonlyMap<string, WalletKey>;
}

export const emptyWallet = (wallet: string): WalletKeys => ({ wallet, version: -1, keys: new Map() });

export function evolve(state: WalletKeys, event: WalletEvent): WalletKeys {
  const keys = new Map(state.keys);
  const d = event.data;
  const existing = keys.get(d.key_id);
  switch (event.type) {
    case 'ApiKeyCreated':
      keys.set(d.key_id, {
        keyId: event.data.key_id,
        keyHash: event.data.key_hash,
        keyPrefix: event.data.key_prefix,
        keyLast4: event.data.key_last4,
        label: event.data.label,
        scopes: event.data.scopes,
        rateLimitRpm: event.data.rate_limit_rpm,
        createdAt: event.data.created_at,
        rotatedAt: null,
        revokedAt: null,
      });
      break;
    case 'ApiKeyRevoked':
      if (existing) keys.set(d.key_id, { ...existing, revokedAt: event.data.revoked_at });
      break;
    case 'ApiKeyRotated':
      if (existing) {
        const { key_hash, key_prefix, key_last4, rotated_at } = event.data;
        keys.set(d.key_id, { ...existing, keyHash: key_hash, keyPrefix: key_prefix, keyLast4: key_last4, rotatedAt: rotated_at });
      }
      break;
    case 'ApiKeyRateLimitSet':
      if (existing) keys.set(d.key_id, { ...existing, rateLimitRpm: event.data.rate_limit_rpm });
      break;
  }
  return { wallet: state.wallet, version: state.version + 1, keys };
}

export function activeKeys(state: WalletKeys): WalletKey[] {
  return [...state.keys.values()].filter((k) => k.revokedAt === null);
}

/** The secret parts of a freshly generated key that the aggregate records (never the key itself). */
export interface KeyMaterial {
  readonly hash: string;
  readonly prefix: string;
  readonly last4: string;
}

export function normalizeScopes(scopes: readonly string[]): Scope[] {
  if (!Array.isArray(scopes) || scopes.length === 0) throw AppError.validation('scopes must contain at least one of read, trade');
  const bad = scopes.filter((s) => !SCOPES.includes(s as Scope));
  if (bad.length > 0) throw AppError.validation(`invalid scopes: ${bad.join(', ')} (allowed: read, trade)`);
  return SCOPES.filter((s) => scopes.includes(s));
}

export function validateLabel(label: string): string {
  if (typeof label !== 'string' || label.trim().length === 0) throw AppError.validation('label is required');
  if (label.length > MAX_LABEL_LENGTH) throw AppError.validation(`label must be at most ${MAX_LABEL_LENGTH} characters`);
  return label;
}

/** Tiers of docs/agent-api.md#keys: 60 (default), 300 (enhanced), 1000 and above (enterprise). */
export function validateRateLimitTier(rpm: number): number {
  if (!Number.isInteger(rpm) || !(rpm === 60 || rpm === 300 || (rpm >= 1000 && rpm <= 1_000_000))) {
    throw AppError.validation('rate_limit_rpm must be 60, 300, or an integer from 1000 to 1000000');
  }
  return rpm;
}

export function decideCreateKey(
  state: WalletKeys,
  cmd: { keyId: string; material: KeyMaterial; label: string; scopes: readonly string[]; origin: 'register' | 'key_management'; at: string },
): WalletEvent {
  const label = validateLabel(cmd.label);
  const scopes = normalizeScopes(cmd.scopes);
  if (activeKeys(state).length >= MAX_ACTIVE_KEYS) {
    throw AppError.validation(`This wallet already has ${MAX_ACTIVE_KEYS} active API keys, the maximum; revoke a key first.`, {
      max_active_keys: MAX_ACTIVE_KEYS,
    });
  }
  return {
    type: 'ApiKeyCreated',
    data: {
      wallet: state.wallet,
      key_id: cmd.keyId,
      key_hash: cmd.material.hash,
      key_prefix: cmd.material.prefix,
      key_last4: cmd.material.last4,
      label,
      scopes,
      rate_limit_rpm: DEFAULT_RATE_LIMIT_RPM,
      origin: cmd.origin,
      created_at: cmd.at,
    },
  };
}

function requireKey(state: WalletKeys, keyId: string): WalletKey {
  const key = state.keys.get(keyId);
  if (!key) throw AppError.notFound('API key not found');
  return key;
}

/** Revoking an already revoked key changes nothing (safe to retry); the caller reports the recorded revoked_at. */
export function decideRevokeKey(state: WalletKeys, cmd: { keyId: string; at: string }): WalletEvent | null {
  const key = requireKey(state, cmd.keyId);
  if (key.revokedAt !== null) return null;
  return { type: 'ApiKeyRevoked', data: { wallet: state.wallet, key_id: cmd.keyId, revoked_at: cmd.at } };
}

export function decideRotateKey(state: WalletKeys, cmd: { keyId: string; material: KeyMaterial; at: string }): WalletEvent {
  const key = requireKey(state, cmd.keyId);
  if (key.revokedAt !== null) throw AppError.notFound('API key not found (it was revoked)');
  return {
    type: 'ApiKeyRotated',
    data: {
      wallet: state.wallet,
      key_id: cmd.keyId,
      key_hash: cmd.material.hash,
      key_prefix: cmd.material.prefix,
      key_last4: cmd.material.last4,
      rotated_at: cmd.at,
    },
  };
}

export function decideSetRateLimit(state: WalletKeys, cmd: { keyId: string; rpm: number; at: string }): WalletEvent | null {
  const key = requireKey(state, cmd.keyId);
  const rpm = validateRateLimitTier(cmd.rpm);
  if (key.rateLimitRpm === rpm) return null;
  return { type: 'ApiKeyRateLimitSet', data: { wallet: state.wallet, key_id: cmd.keyId, rate_limit_rpm: rpm, set_at: cmd.at } };
}
