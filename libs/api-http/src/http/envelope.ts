/** The response envelope (docs/agent-api.md#conventions): `success`, then `data` (+ `meta` on paginated lists) or `error`. */
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
  readonly error: {
    readonly code: string;
    readonly message: string;
    readonly details?: Record<string, unknown>;
    /** The request's id (also the X-Request-Id header and `reqId` on its log lines), for support and log search. */
    readonly request_id?: string;
  };
}

export function ok<T>(data: T): SuccessEnvelope<T> {
  return { success: true, data };
}

export function page<T>(data: T[], meta: PageMeta): SuccessEnvelope<T[]> {
  return { success: true, data, meta };
}

export function failure(code: string, message: string, details?: Record<string, unknown>, requestId?: string): ErrorEnvelope {
  return {
    success: false,
    error: { code, message, ...(details ? { details } : {}), ...(requestId ? { request_id: requestId } : {}) },
  };
}
