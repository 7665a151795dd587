/** The spec's response envelope: `success`, then `data` (+ `meta` on paginated lists) or `error`. */
export interface PageMeta {
  readonly page: number;
  readonly limit: number;
  readonly total: number;
}

export interface SuccessEnvelope<T> {
  readonly success: true;
  readonly data: T;
  readonly meta?: PageMeta;
}

export interface ErrorEnvelope {
  readonly success: false;
  readonly error: { readonly code: string; readonly message: string; readonly details?: Record<string, unknown> };
}

export function ok<T>(data: T): SuccessEnvelope<T> {
  return { success: true, data };
}

export function page<T>(data: T[], meta: PageMeta): SuccessEnvelope<T[]> {
  return { success: true, data, meta };
}
