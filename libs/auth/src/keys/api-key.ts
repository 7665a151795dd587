import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { base62, BASE62_CHARS } from './base62';

/**
 * API key format (docs/decisions.md#d6): `svc_ak_` + 192 random bits in base62 (33 chars) + a 6-char base62 CRC-32 of
 * everything before it. The checksum (as in GitHub's token format) lets the guard refuse typos and garbage
 * without a database lookup. Only the SHA-256 of the whole key is stored: the key has 192 bits of entropy, so a
 * fast hash is enough (no password-style stretching needed) and lookups stay one indexed equality.
 */
export const API_KEY_PREFIX = 'svc_ak_';
const RANDOM_BYTES = 24;
const BODY_CHARS = 33; // 62^33 > 2^192
const CHECKSUM_CHARS = 6; // 62^6 > 2^32
export const API_KEY_LENGTH = API_KEY_PREFIX.length + BODY_CHARS + CHECKSUM_CHARS;

export interface IssuedApiKey {
  /** The full key: shown to the agent once, never stored. */
  readonly key: string;
  readonly hash: string;
  /** `svc_ak_` + the first four characters of the random part (Dob's `key_prefix`). */
  readonly prefix: string;
  readonly last4: string;
}

function checksum(text: string): string {
  return base62(crc32(text) >>> 0, CHECKSUM_CHARS);
}

export function generateApiKey(): IssuedApiKey {
  const head = API_KEY_PREFIX + base62(randomBytes(RANDOM_BYTES), BODY_CHARS);
  const key = head + checksum(head);
  return { key, hash: hashApiKey(key), prefix: apiKeyPrefix(key), last4: key.slice(-4) };
}

/** Shape and checksum only; says nothing about whether the key exists. */
export function isWellFormedApiKey(key: string): boolean {
  if (key.length !== API_KEY_LENGTH || !key.startsWith(API_KEY_PREFIX)) return false;
  const rest = key.slice(API_KEY_PREFIX.length);
  if (!BASE62_CHARS.test(rest)) return false;
  const head = key.slice(0, -CHECKSUM_CHARS);
  return checksum(head) === key.slice(-CHECKSUM_CHARS);
}

/** Runs on every guarded request: the one-shot `crypto.hash` (Node ≥ 20.12) is ×3 faster than a Hash object here. */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function apiKeyPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + 4);
}

/** `key_masked` (docs/agent-api.md#keys): the start and the last four characters, the middle hidden. */
export function maskApiKey(prefix: string, last4: string): string {
  return `${prefix}…${last4}`;
}
