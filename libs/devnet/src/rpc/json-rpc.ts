/** JSON-RPC 2.0 plumbing (https://www.jsonrpc.org/specification): envelopes, standard error codes, dispatch. */

export const JsonRpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export const invalidParams = (message: string) => new JsonRpcError(JsonRpcCode.invalidParams, message);

export type RpcMethod = (params: Record<string, unknown>) => unknown;

type Id = string | number | null;
export interface JsonRpcResponse {
  readonly jsonrpc: '2.0';
  readonly id: Id;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

function errorResponse(id: Id, code: number, message: string): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** Handles one request object; never throws (bad input becomes a JSON-RPC error, bugs become -32603). */
export function dispatch(methods: Readonly<Record<string, RpcMethod>>, request: unknown): JsonRpcResponse {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    return errorResponse(null, JsonRpcCode.invalidRequest, 'invalid request');
  }
  const { jsonrpc, method, params, id: rawId } = request as Record<string, unknown>;
  const id: Id = typeof rawId === 'string' || typeof rawId === 'number' ? rawId : null;
  if (jsonrpc !== '2.0' || typeof method !== 'string') return errorResponse(id, JsonRpcCode.invalidRequest, 'invalid request');
  const handler = Object.prototype.hasOwnProperty.call(methods, method) ? methods[method] : undefined;
  if (!handler) return errorResponse(id, JsonRpcCode.methodNotFound, 'method not found');
  if (params !== undefined && params !== null && (typeof params !== 'object' || Array.isArray(params))) {
    return errorResponse(id, JsonRpcCode.invalidParams, 'params must be an object');
  }
  try {
    return { jsonrpc: '2.0', id, result: handler((params ?? {}) as Record<string, unknown>) };
  } catch (err) {
    if (err instanceof JsonRpcError) return errorResponse(id, err.code, err.message);
    return errorResponse(id, JsonRpcCode.internalError, (err as Error).message ?? 'internal error');
  }
}
