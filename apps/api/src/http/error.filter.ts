import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AppError, ERROR_STATUS, type ErrorCode } from '@dob/domain';
import type { ErrorEnvelope } from './envelope';

/**
 * Every failure leaves in the envelope with a stable code. Client mistakes that reach us as framework or Fastify
 * errors (unknown route, malformed JSON, wrong content type, oversized body) become 4xx codes; only a genuine
 * fault of ours is INTERNAL_ERROR, logged with its stack and never echoed to the client.
 */
@Catch()
export class EnvelopeErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const { status, body } = this.toEnvelope(exception);
    void reply.status(status).header('content-type', 'application/json; charset=utf-8').send(body);
  }

  private toEnvelope(e: unknown): { status: number; body: ErrorEnvelope } {
    if (e instanceof AppError) return envelope(e.status, e.code, e.message, e.details);
    if (e instanceof HttpException) {
      const status = e.getStatus();
      if (status === 404) return envelope(404, 'NOT_FOUND', 'Route not found');
      if (status < 500) return envelope(status, codeForClientStatus(status), messageOf(e));
    }
    const fastifyStatus = (e as { statusCode?: number }).statusCode;
    if (typeof fastifyStatus === 'number' && fastifyStatus >= 400 && fastifyStatus < 500) {
      return envelope(fastifyStatus, codeForClientStatus(fastifyStatus), (e as Error).message);
    }
    this.logger.error((e as Error)?.stack ?? String(e));
    return envelope(500, 'INTERNAL_ERROR', 'Unexpected server error');
  }
}

function envelope(status: number, code: ErrorCode | string, message: string, details?: Record<string, unknown>) {
  const error = details ? { code, message, details } : { code, message };
  return { status, body: { success: false as const, error } };
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

export const KNOWN_STATUSES = ERROR_STATUS;
