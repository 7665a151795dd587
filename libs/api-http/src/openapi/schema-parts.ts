import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

import { responseSchemas } from '@dob/read-models';

/**
 * The pieces every area's OpenAPI response schemas are built from, so /api/agent/openapi.json documents the real
 * shapes. One source with the read models' API views, which derive their schemas from the same pieces
 * (libs/read-models queries/response-schemas.ts).
 */
export const { str, nstr, int, num, bool, money, time, obj } = responseSchemas;

const meta = obj({ page: int, limit: int, total: int });
/** `{success, data}` (+ `meta` for paginated lists). */
export function envelope(data: SchemaObject, shape: 'one' | 'list' | 'page'): SchemaObject {
  const d = shape === 'one' ? data : { type: 'array', items: data };
  return obj({ success: { type: 'boolean', example: true }, data: d as SchemaObject, ...(shape === 'page' ? { meta } : {}) });
}
