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
 * If a key changed between the cached lookup and the decision, the request may be charged twice (once to the
 * bucket it no longer belongs to); docs/auth.md counts that in the limiter's tolerance.
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
      const stamp = auth.authenticator.cacheStamp();
      let principal = typeof header === 'string' ? await auth.authenticator.authenticate(header) : null;
      decision = await charge(principal);
      // The limiter's round trip also read the shared key epoch: if keys changed since this lookup was cached, decide
      // again from storage (a revoke on another instance refuses this very request; docs/auth.md "Key cache").
      if (!auth.authenticator.confirm(stamp, decision.epoch) && typeof header === 'string') {
        const fresh = await auth.authenticator.authenticate(header);
        if (!sameBucket(principal, fresh)) decision = await charge(fresh);
        principal = fresh;
      }
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

/** Same bucket and budget: the charge already made for `before` stands for `after`. */
function sameBucket(before: ActiveApiKey | null, after: ActiveApiKey | null): boolean {
  return before === after || (before !== null && after !== null && before.keyId === after.keyId && before.rateLimitRpm === after.rateLimitRpm);
}
