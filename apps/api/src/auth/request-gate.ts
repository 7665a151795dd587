import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ActiveApiKey } from '@dob/auth';
import type { ServiceMetrics } from '@dob/observability';
import type { RateLimitDecision } from '@dob/rate-limit';
import type { AgentAuthState } from './agent-principal';
import type { ApiAuthDependencies } from './api-auth.dependencies';
import { failure } from '../http/envelope';

/**
 * Fastify onRequest hook on every `/api/agent` request — matched routes and unknown ones alike, so 404s carry
 * the rate-limit headers too. It authenticates X-API-Key once and charges one bucket:
 * - a valid key: the key's bucket at its rate_limit_rpm (shared by all instances when the limiter is Redis);
 * - anything else (auth endpoints, JWT key management, a missing or bad key): the client IP's bucket.
 * Refusals are answered here (429 envelope + Retry-After); authorisation is left to ApiKeyScopeGuard.
 */
export function installRequestGate(fastify: FastifyInstance, auth: ApiAuthDependencies, prefix: string, metrics?: ServiceMetrics): void {
  fastify.decorateRequest('agentAuth', null);
  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.url.startsWith(prefix)) return;
    let decision: RateLimitDecision;
    let bucket: 'key' | 'ip' = 'ip';
    const charge = (principal: ActiveApiKey | null) =>
      principal
        ? auth.rateLimiter.consume(`key:${principal.keyId}`, principal.rateLimitRpm)
        : auth.rateLimiter.consume(`ip:${request.ip}`, auth.ipRateLimitRpm);
    try {
      const header = request.headers['x-api-key'];
      const principal = typeof header === 'string' ? await auth.authenticator.authenticate(header) : null;
      decision = await charge(principal);
      (request as unknown as { agentAuth: AgentAuthState }).agentAuth = { keySent: header !== undefined, principal };
      if (principal) bucket = 'key';
    } catch (e) {
      request.log.error({ err: e }, 'request gate failed');
      return reply.code(500).send(failure('INTERNAL_ERROR', 'Unexpected server error', undefined, request.id));
    }
    void reply.header('X-RateLimit-Limit', decision.limit);
    void reply.header('X-RateLimit-Remaining', decision.remaining);
    void reply.header('X-RateLimit-Reset', decision.resetAt);
    if (!decision.allowed) {
      metrics?.rateLimitRefusals.inc({ bucket });
      return reply
        .code(429)
        .header('Retry-After', decision.retryAfterSeconds)
        .send(
          failure(
            'RATE_LIMIT_EXCEEDED',
            `Rate limit exceeded. Retry after ${decision.retryAfterSeconds} seconds.`,
            { limit: decision.limit, retry_after: decision.retryAfterSeconds },
            request.id,
          ),
        );
    }
  });
}
