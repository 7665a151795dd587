/**
 * Runtime reads of the response fields the helpers rely on. Where the OpenAPI document declares a response schema
 * the generated types already describe it; these checks keep the helpers honest for responses it does not (yet)
 * describe, and turn a surprising body into a clear error instead of `undefined` further on.
 */
export function requireObject(from: unknown, field: string, what: string): Record<string, unknown> {
  const v = (from as Record<string, unknown> | null | undefined)?.[field];
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new TypeError(`${what} response: ${field} is not an object`);
  return v as Record<string, unknown>;
}

export function requireString(from: Record<string, unknown>, field: string, what: string): string {
  const v = from[field];
  if (typeof v !== 'string' || v === '') throw new TypeError(`${what} response: ${field} is not a string`);
  return v;
}
