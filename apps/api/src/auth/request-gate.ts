import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ActiveApiKey } from '@dob/auth';
import { AppError } from '@dob/domain';
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
 * The common case — a key the key cache holds, admitted from a local grant or the in-process window — is decided
 * synchronously (authenticateNow, consumeNow): no promise per request; anything else takes the asynchronous path,
 * which asks storage or Redis. Both count the same request the same way.
 */
export function installRequestGate(fastify: FastifyInstance, auth: ApiAuthDependencies, prefix: string, metrics?: ServiceMetrics): void {
  fastify.decorateRequest('agentAuth', null);
  const { authenticator, rateLimiter } = auth;
  const bucketOf = (request: FastifyRequest, principal: ActiveApiKey | null): [string, number] =>
    principal ? [`key:${principal.keyId}`, principal.rateLimitRpm] : [`ip:${request.ip}`, auth.ipRateLimitRpm];

  /** Leaves the verdict on the request, writes the rate-limit headers; false when the request was refused here. */
  const answer = (request: FastifyRequest, reply: FastifyReply, header: unknown, principal: ActiveApiKey | null, decision: RateLimitDecision): boolean => {
    (request as unknown as { agentAuth: AgentAuthState }).agentAuth = { keySent: header !== undefined, principal };
    void reply.header('X-RateLimit-Limit', decision.limit);
    void reply.header('X-RateLimit-Remaining', decision.remaining);
    void reply.header('X-RateLimit-Reset', decision.resetAt);
    if (decision.allowed) return true;
    metrics?.rateLimitRefusals.inc({ bucket: principal ? 'key' : 'ip' });
    void reply
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
    return false;
  };

  /** The synchronous decision, or undefined when it needs storage or Redis. */
  const decideNow = (request: FastifyRequest, header: unknown): { principal: ActiveApiKey | null; decision: RateLimitDecision } | undefined => {
    const principal = typeof header === 'string' ? authenticator.authenticateNow(header) : null;
    if (principal === undefined) return undefined;
    const decision = rateLimiter.consumeNow?.(...bucketOf(request, principal));
    return decision && { principal, decision };
  };

  const decideLater = async (request: FastifyRequest, reply: FastifyReply, header: unknown): Promise<boolean> => {
    let principal: ActiveApiKey | null;
    let decision: RateLimitDecision;
    try {
      principal = typeof header === 'string' ? await authenticator.authenticate(header) : null;
      decision = await rateLimiter.consume(...bucketOf(request, principal));
    } catch (e) {
      if (e instanceof AppError && e.retryAfterSeconds !== undefined) {
        // The key index's server is away (AppError SERVICE_UNAVAILABLE from the storage adapter): 503, come back later.
        void reply
          .code(e.status)
          .header('Retry-After', e.retryAfterSeconds)
          .send(failure(e.code, e.message, e.details, request.id));
        return false;
      }
      request.log.error({ err: e }, 'request gate failed');
      void reply.code(500).send(failure('INTERNAL_ERROR', 'Unexpected server error', undefined, request.id));
      return false;
    }
    return answer(request, reply, header, principal, decision);
  };

  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (!request.url.startsWith(prefix)) return done();
    const header = request.headers['x-api-key'];
    let now: ReturnType<typeof decideNow>;
    try {
      now = decideNow(request, header);
    } catch {
      now = undefined; // the asynchronous path decides, and answers a failure itself
    }
    if (now) {
      if (answer(request, reply, header, now.principal, now.decision)) done();
      return; // refused: answered above, the route does not run
    }
    void decideLater(request, reply, header).then((goOn) => goOn && done());
  });
}
