import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '@dob/domain';
import { failure, type ErrorEnvelope } from './envelope';

/**
 * Every failure leaves in the envelope with a stable code and the request's id. Client mistakes that reach us as
 * framework or Fastify errors (unknown route, malformed or too deeply nested JSON, wrong content type, oversized
 * body) become 4xx codes; only a genuine fault of ours is INTERNAL_ERROR, logged with its stack on the request's
 * log line and never echoed to the client.
 */
@Catch()
export class EnvelopeErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest | undefined>();
    const { status, body } = this.toEnvelope(exception, request);
    // A refusal that says when to come back says it in the standard header: a server we depend on away, a quota,
    // a submit or an Idempotency-Key still in flight. The error raised says it (AppError.retryAfterSeconds).
    const retryAfter = exception instanceof AppError ? exception.retryAfterSeconds : undefined;
    if (retryAfter !== undefined) void reply.header('Retry-After', String(retryAfter));
    void reply.status(status).header('content-type', 'application/json; charset=utf-8').send(body);
  }

  private toEnvelope(e: unknown, request: FastifyRequest | undefined): { status: number; body: ErrorEnvelope } {
    const id = request?.id;
    if (e instanceof AppError) return { status: e.status, body: failure(e.code, e.message, e.details, id) };
    if (e instanceof HttpException) {
      const status = e.getStatus();
      if (status === 404) return { status, body: failure('NOT_FOUND', 'Route not found', undefined, id) };
      if (status < 500) return { status, body: failure(codeForClientStatus(status), messageOf(e), undefined, id) };
    }
    const fastifyStatus = (e as { statusCode?: number }).statusCode;
    if (typeof fastifyStatus === 'number' && fastifyStatus >= 400 && fastifyStatus < 500) {
      return { status: fastifyStatus, body: failure(codeForClientStatus(fastifyStatus), (e as Error).message, undefined, id) };
    }
    // request.log carries the request id; the Nest logger is the fallback outside a request.
    if (request?.log) request.log.error({ err: e }, 'unexpected server error');
    else this.logger.error((e as Error)?.stack ?? String(e));
    return { status: 500, body: failure('INTERNAL_ERROR', 'Unexpected server error', undefined, id) };
  }
}

function codeForClientStatus(status: number): ErrorCode {
  if (status === 401) return 'UNAUTHORIZED';
  if (status === 403) return 'INSUFFICIENT_SCOPE';
  if (status === 404) return 'NOT_FOUND';
  if (status === 409) return 'CONFLICT';
  if (status === 429) return 'RATE_LIMIT_EXCEEDED';
  return 'VALIDATION_ERROR';
}

function messageOf(e: HttpException): string {
  const r = e.getResponse();
  if (typeof r === 'string') return r;
  const m = (r as { message?: unknown }).message;
  return Array.isArray(m) ? m.join('; ') : typeof m === 'string' ? m : e.message;
}
