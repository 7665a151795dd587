import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { failure } from './envelope';
import { exceedsJsonDepth } from './json-depth';
import { httpLimitOptions, type HttpLimits } from './connection-limits';

/** Largest JSON body accepted (the biggest legitimate one, a signed XDR envelope, is a few KB). */
export const BODY_LIMIT_BYTES = 256 * 1024;
/** Deepest JSON nesting accepted; our deepest DTO is 2 levels (an object holding an array of strings). */
export const MAX_JSON_DEPTH = 32;
/** Longest path parameter; ids and addresses are ≤ 64 characters (Fastify answers longer ones with 414). */
export const MAX_PARAM_LENGTH = 128;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** A caller's X-Request-Id is kept when it is a plain token (so it correlates across services); else a new UUID. */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
}

/**
 * Fastify options that keep every framework-level refusal inside the error envelope (docs/agent-api.md#errors): oversized path
 * parameters (414) and malformed URLs (400) reach `frameworkErrors`; errors Node's HTTP parser raises before a
 * request exists (431 header overflow, 408 timeout, 400 malformed request) reach `clientErrorHandler`, which writes
 * the envelope on the raw socket. Fastify docs: Server → frameworkErrors, clientErrorHandler, genReqId. With the
 * timeouts and trusted proxies of `limits` (connection-limits.ts).
 */
export function hardenedFastifyOptions(limits: HttpLimits): FastifyServerOptions {
  return {
    ...httpLimitOptions(limits),
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    requestIdHeader: false,
    genReqId: (req) => requestIdOf(req.headers['x-request-id']),
    frameworkErrors: (error, request, reply) => {
      const status = (error as { statusCode?: number }).statusCode ?? 400;
      const message =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? `A path parameter is longer than ${MAX_PARAM_LENGTH} characters` : 'The request URL is malformed';
      const raw = reply as unknown as FastifyReply;
      void raw
        .status(status >= 500 ? 400 : status)
        .header('x-request-id', request.id)
        .header('content-type', 'application/json; charset=utf-8')
        .send(failure('VALIDATION_ERROR', message, undefined, request.id));
    },
    clientErrorHandler: writeClientError,
  };
}

function writeClientError(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'The request headers are too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request took too long to arrive']
        : [400, 'The request is not valid HTTP'];
  const id = randomUUID();
  const body = JSON.stringify(failure('VALIDATION_ERROR', message, undefined, id));
  this.log.debug({ err, reqId: id }, 'client error');
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/**
 * JSON is the only body type (bodies are JSON: docs/agent-api.md#conventions): text/plain is no longer parsed, so it is a 415 like any
 * other type. JSON bodies nested deeper than MAX_JSON_DEPTH are refused with 400 before anything walks them; the
 * rest goes to Fastify's own parser (secure-json-parse: __proto__ / constructor poisoning is refused).
 */
export function installJsonBodyParser(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser(['application/json', 'text/plain']);
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, raw, done) => {
    const body = String(raw);
    if (exceedsJsonDepth(body, MAX_JSON_DEPTH)) {
      done(Object.assign(new Error(`The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`), { statusCode: 400 }), undefined);
      return;
    }
    parseJson(request, body, done);
  });
}

/**
 * No string input may hold a NUL character: PostgreSQL text cannot store one, so it once reached a query and
 * answered 500 ("invalid byte sequence for encoding UTF8: 0x00", found by Schemathesis in a payment_token filter).
 * Checked once for query, path and body (depth already bounded by MAX_JSON_DEPTH), before any handler runs.
 */
export function installNulGuard(fastify: FastifyInstance): void {
  fastify.addHook('preHandler', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const where = (['query', 'params', 'body'] as const).find((part) => holdsNul(request[part], 0));
    if (!where) return done();
    void reply
      .status(400)
      .header('content-type', 'application/json; charset=utf-8')
      .send(failure('VALIDATION_ERROR', `The request ${where === 'params' ? 'path' : where} contains a NUL character`, undefined, request.id));
  });
}

function holdsNul(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object' || depth > MAX_JSON_DEPTH) return false;
  return Object.entries(value).some(([k, v]) => k.includes('\u0000') || holdsNul(v, depth + 1));
}

/** Every response carries its request id, errors included (hooks registered before the request gate). */
export function installRequestId(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    void reply.header('x-request-id', request.id);
    done();
  });
}
