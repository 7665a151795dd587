import { Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimitDecision } from '@dob/rate-limit';
import type { AgentAuthState } from './agent-principal';
import type { ApiAuthDependencies } from './api-auth.dependencies';

/**
 * Fastify onRequest hook on every `/api/agent` request — matched routes and unknown ones alike, so 404s carry
 * the rate-limit headers too. It authenticates X-API-Key once and charges one bucket:
 * - a valid key: the key's bucket at its rate_limit_rpm (shared by all instances when the limiter is Redis);
 * - anything else (auth endpoints, JWT key management, a missing or bad key): the client IP's bucket.
 * Refusals are answered here (429 envelope + Retry-After); authorisation is left to ApiKeyScopeGuard.
 */
export function installRequestGate(fastify: FastifyInstance, auth: ApiAuthDependencies, prefix: string): void {
  const logger = new Logger('request-gate');
  fastify.decorateRequest('agentAuth', null);
  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.url.startsWith(prefix)) return;
    let decision: RateLimitDecision;
    try {
      const header = request.headers['x-api-key'];
      const principal = typeof header === 'string' ? await auth.authenticator.authenticate(header) : null;
      const state: AgentAuthState = { keySent: header !== undefined, principal };
      (request as unknown as { agentAuth: AgentAuthState }).agentAuth = state;
      decision = principal
        ? await auth.rateLimiter.consume(`key:${principal.keyId}`, principal.rateLimitRpm)
        : await auth.rateLimiter.consume(`ip:${request.ip}`, auth.ipRateLimitRpm);
    } catch (e) {
      logger.error((e as Error)?.stack ?? String(e));
      return reply
        .code(500)
        .send({ success: false, error: { code: 'INTERNAL_ERROR', message: 'Unexpected server error' } });
    }
    void reply.header('X-RateLimit-Limit', decision.limit);
    void reply.header('X-RateLimit-Remaining', decision.remaining);
    void reply.header('X-RateLimit-Reset', decision.resetAt);
    if (!decision.allowed) {
      return reply
        .code(429)
        .header('Retry-After', decision.retryAfterSeconds)
        .send({
          success: false,
          error: {
            code: 'RATE_LIMIT_EXCEEDED',
            message: `Rate limit exceeded. Retry after ${decision.retryAfterSeconds} seconds.`,
            details: { limit: decision.limit, retry_after: decision.retryAfterSeconds },
          },
        });
    }
  });
}
