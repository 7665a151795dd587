import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { int, nstr, obj, str, time } from '../openapi/schema-parts';

/** Response shapes of the auth and key-management endpoints (docs/decisions.md#d6). */
const scopes: SchemaObject = { type: 'array', items: { type: 'string', enum: ['read', 'trade'] } };
const at = { type: 'string', format: 'date-time' } as const;

export const challengeSchema = obj({ wallet: str, message: str, nonce: str, issued_at: at, expires_at: at, expires_in: int });
export const nonceSchema = obj({ nonce: str, message: str, expires_at: at });
export const tokenSchema = obj({ token: str, token_type: { type: 'string', enum: ['Bearer'] }, expires_at: at });
export const registeredSchema = obj({
  wallet: str,
  api_key: obj({
    key_id: str,
    key: { type: 'string', description: 'svc_ak_…, shown once' },
    key_prefix: str,
    label: str,
    scopes,
    rate_limit_rpm: int,
    created_at: at,
  }),
});
export const createdKeySchema = obj({ key_id: str, key: str, label: str, scopes, created_at: at });
export const listedKeySchema = obj({ key_id: str, key_masked: str, label: str, scopes, created_at: at, last_used_at: time });
export const revokedKeySchema = obj({ key_id: str, revoked: { type: 'boolean', enum: [true] }, revoked_at: nstr });
export const rotatedKeySchema = obj({ key_id: str, key: str, label: str, scopes, rotated_at: nstr });
