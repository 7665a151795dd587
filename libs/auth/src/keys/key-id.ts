import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * `key_id` = `ak_` + a ULID (48-bit millisecond time + 80 random bits, Crockford base32), the shape Dob shows
 * (`ak_01HQ3K5M7N8P9Q0R1S2T3U4V5W`). Sortable by creation time; not a secret.
 */
export function newKeyId(now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(10);
  let bits = 0n;
  for (const b of bytes) bits = (bits << 8n) | BigInt(b);
  let rand = '';
  for (let i = 0; i < 16; i++) {
    rand = CROCKFORD[Number(bits & 31n)]! + rand;
    bits >>= 5n;
  }
  return `ak_${time}${rand}`;
}

export const KEY_ID_PATTERN = /^ak_[0-9A-HJKMNP-TV-Z]{26}$/;
