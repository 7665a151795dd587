import type { ArgumentsHost } from '@nestjs/common';
import { AppError } from '@dob/domain';
import { EnvelopeErrorFilter } from './error.filter';

/** A Fastify reply that records what the filter sets. */
function recordingHost() {
  const sent: { status?: number; headers: Record<string, string>; body?: unknown } = { headers: {} };
  const reply = {
    header(name: string, value: string) {
      sent.headers[name.toLowerCase()] = value;
      return reply;
    },
    status(code: number) {
      sent.status = code;
      return reply;
    },
    send(body: unknown) {
      sent.body = body;
      return reply;
    },
  };
  const host = { switchToHttp: () => ({ getResponse: () => reply, getRequest: () => ({ id: 'req-1' }) }) } as unknown as ArgumentsHost;
  return { host, sent };
}

describe('EnvelopeErrorFilter', () => {
  const filter = new EnvelopeErrorFilter();

  it('sends Retry-After from the error raised, and the body as the spec names it', () => {
    const { host, sent } = recordingHost();
    filter.catch(AppError.conflict('still in flight', { retry_after_seconds: 3 }, 3), host);
    expect(sent.status).toBe(409);
    expect(sent.headers['retry-after']).toBe('3');
    expect(sent.body).toEqual({
      success: false,
      error: { code: 'CONFLICT', message: 'still in flight', details: { retry_after_seconds: 3 }, request_id: 'req-1' },
    });
  });

  it('sends the dependency default on a 503', () => {
    const { host, sent } = recordingHost();
    filter.catch(AppError.dependencyUnavailable('postgresql'), host);
    expect(sent.status).toBe(503);
    expect(sent.headers['retry-after']).toBe('2');
  });

  it('sends no Retry-After when the error does not say one', () => {
    const { host, sent } = recordingHost();
    filter.catch(AppError.conflict('listing no longer active'), host);
    expect(sent.status).toBe(409);
    expect(sent.headers['retry-after']).toBeUndefined();
  });
});
