import type { OpenAPIObject } from '@nestjs/swagger';
import type { OperationObject, ResponseObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { BODY_LIMIT_BYTES, MAX_PARAM_LENGTH } from './http-hardening';

/** The error envelope (docs/agent-api.md#conventions), with the request id every error carries. */
export const errorEnvelopeSchema: SchemaObject = {
  type: 'object',
  required: ['success', 'error'],
  properties: {
    success: { type: 'boolean', enum: [false] },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', example: 'VALIDATION_ERROR' },
        message: { type: 'string' },
        details: { type: 'object', additionalProperties: true },
        request_id: { type: 'string', description: 'Also the X-Request-Id response header and reqId in the logs' },
      },
    },
  },
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/**
 * Completes the document so it describes every response an operation can give, not only its success: what the
 * request gate, the validation pipe and Fastify itself answer follows from the operation's shape, so it is added
 * here once instead of on every controller method —
 *   every operation: 429 (the rate limit: per API key, per IP without one);
 *   parameters or a body: 400 VALIDATION_ERROR;  a body: 413 (over the size limit), 415 (not JSON);
 *   path parameters: 404 and 414 (a parameter over the length limit);
 *   API-key operations: 401 MISSING_API_KEY / INVALID_API_KEY and 403 INSUFFICIENT_SCOPE;  JWT operations: 401.
 * Every error response (these and those the controllers declare) gets the envelope schema. 5xx are not declared:
 * no client input may cause one (Schemathesis' not_a_server_error check holds us to that).
 */
export function documentErrorResponses(document: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const op = item[method] as OperationObject | undefined;
      if (op) completeOperation(op);
    }
  }
  return document;
}

function completeOperation(op: OperationObject): void {
  const responses = op.responses as Record<string, ResponseObject>;
  const add = (status: number, description: string) => {
    responses[status] ??= { description };
  };
  const params = (op.parameters ?? []) as { in?: string }[];
  const security = (op.security ?? []).flatMap((s) => Object.keys(s));
  add(429, 'RATE_LIMIT_EXCEEDED: over the rate limit; Retry-After says when to try again');
  if (params.length > 0 || op.requestBody) add(400, 'VALIDATION_ERROR naming the parameter or field');
  if (op.requestBody) {
    add(413, `VALIDATION_ERROR: the body is larger than ${BODY_LIMIT_BYTES / 1024} KB`);
    add(415, 'VALIDATION_ERROR: the body is not application/json');
  }
  if (params.some((p) => p.in === 'path')) {
    add(404, 'NOT_FOUND');
    add(414, `VALIDATION_ERROR: a path parameter is longer than ${MAX_PARAM_LENGTH} characters`);
  }
  if (security.includes('api-key')) {
    add(401, 'MISSING_API_KEY (no X-API-Key header) or INVALID_API_KEY (unknown, revoked or rotated-away key)');
    add(403, 'INSUFFICIENT_SCOPE: the key lacks the scope this endpoint requires');
  }
  if (security.includes('jwt')) add(401, 'UNAUTHORIZED: missing, invalid or expired Bearer JWT');
  for (const [status, response] of Object.entries(responses)) {
    if (Number(status) >= 400 && !response.content) response.content = { 'application/json': { schema: errorEnvelopeSchema } };
  }
}
