/**
 * Pieces of the read endpoints' OpenAPI response schemas (plain JSON Schema objects, no framework types), so the
 * API views (api-view.ts) derive each response's schema from the same declaration as its mapping.
 */
export interface JsonSchema {
  type?: string;
  format?: string;
  nullable?: boolean;
  description?: string;
  example?: unknown;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  allOf?: JsonSchema[];
}

export const str = { type: 'string' } as const;
export const nstr = { type: 'string', nullable: true } as const;
export const int = { type: 'integer' } as const;
export const num = { type: 'number' } as const;
export const bool = { type: 'boolean' } as const;
export const money = { type: 'string', description: 'Decimal string in token units, at least 2 decimals', example: '12.50' } as const;
export const time = { type: 'string', format: 'date-time', nullable: true } as const;
/**
 * Every property is always present in what the API sends (absent values are null, never omitted), so all are
 * required — except the few the live API documents as appearing only sometimes, named in `optional`. Generic in
 * the property schemas' type, so the API's framework-typed schemas (OpenAPI `SchemaObject`s) use it too.
 */
export const obj = <S extends object = JsonSchema>(properties: Record<string, S>, optional: readonly string[] = []) => ({
  type: 'object' as const,
  properties,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
});
