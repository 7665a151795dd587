import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/** The pieces every area's OpenAPI response schemas are built from, so /api/agent/openapi.json documents the real shapes. */
export const str = { type: 'string' } as const;
export const nstr = { type: 'string', nullable: true } as const;
export const int = { type: 'integer' } as const;
export const num = { type: 'number' } as const;
export const bool = { type: 'boolean' } as const;
export const money = { type: 'string', description: 'Decimal string in token units, at least 2 decimals', example: '12.50' } as const;
export const time = { type: 'string', format: 'date-time', nullable: true } as const;
/**
 * Every property is always present in what the API sends (absent values are null, never omitted), so all are
 * required — except the few the live API documents as appearing only sometimes, named in `optional`.
 */
export const obj = (properties: Record<string, SchemaObject>, optional: readonly string[] = []): SchemaObject => ({
  type: 'object',
  properties,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
});

const meta = obj({ page: int, limit: int, total: int });
/** `{success, data}` (+ `meta` for paginated lists). */
export function envelope(data: SchemaObject, shape: 'one' | 'list' | 'page'): SchemaObject {
  const d = shape === 'one' ? data : { type: 'array', items: data };
  return obj({ success: { type: 'boolean', example: true }, data: d as SchemaObject, ...(shape === 'page' ? { meta } : {}) });
}
