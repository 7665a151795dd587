import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ActiveApiKey } from '@dob/auth';
import { AppError } from '@dob/domain';
import type { ServiceMetrics } from '@dob/observability';
import { clientBucketOf, type RateLimitDecision } from '@dob/rate-limit';
import type { AgentAuthState } from './agent-principal';
import type { ApiAuthDependencies } from './api-auth.dependencies';
import { failure } from '../http/envelope';
import { onMatchedRoutes } from '../http/route-hooks';

/**
 * Fastify onRequest hook on every route under `/api/agent` and on every request no route matched, so 404s carry
 * the rate-limit headers too. Which requests it sees is decided by the router's match, never by the URL's spelling:
 * the router also serves `/%61pi/agent/…` and absolute-form targets (`GET http://host/api/agent/…`), and a prefix
 * test on the raw URL let those through unlimited (issue 29). So the hook is attached to each matched route whose
 * template is under the prefix (onRoute) and to the not-found handler (every unmatched spelling of anything); only
 * the routes outside the prefix (/health, /health/live, /metrics, /docs) go without it.
 * It authenticates X-API-Key once and charges one bucket:
 * - a valid key: the key's bucket at its rate_limit_rpm (shared by all instances when the limiter is Redis);
 * - anything else (auth endpoints, JWT key management, a missing or bad key): the client's bucket — its address
 *   (Fastify's request.ip, which honours the configured trusted proxies), an IPv6 one per /64 (clientBucketOf).
 * Refusals are answered here (429 envelope + Retry-After); authorisation is left to ApiKeyScopeGuard.
 * The common case — a key the key cache holds, admitted from a local grant or the in-process window — is decided
 * synchronously (authenticateNow, consumeNow): no promise per request; anything else takes the asynchronous path,
 * which asks storage or Redis. Both count the same request the same way.
 */
export function installRequestGate(fastify: FastifyInstance, auth: ApiAuthDependencies, prefix: string, metrics?: ServiceMetrics): void {
  fastify.decorateRequest('agentAuth', null);
  const { authenticator, rateLimiter } = auth;
  const bucketOf = (request: FastifyRequest, principal: ActiveApiKey | null): [string, number] =>
    principal ? [`key:${principal.keyId}`, principal.rateLimitRpm] : [`ip:${clientBucketOf(request.ip)}`, auth.ipRateLimitRpm];

  /** Leaves the verdict on the request, writes the rate-limit headers; false when the request was refused here. */
  const answer = (request: FastifyRequest, reply: FastifyReply, header: unknown, principal: ActiveApiKey | null, decision: RateLimitDecision): boolean => {
    (request as unknown as { agentAuth: AgentAuthState }).agentAuth = { keySent: header !== undefined, principal };
    // Lower case, as Fastify stores and sends every header name: a name already so is not copied on each request.
    void reply.header('x-ratelimit-limit', decision.limit);
    void reply.header('x-ratelimit-remaining', decision.remaining);
    void reply.header('x-ratelimit-reset', decision.resetAt);
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

  const gate = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
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
  };
  onMatchedRoutes(
    fastify,
    (template) => template.startsWith(prefix),
    () => gate,
  );
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => (request.is404 ? gate(request, reply, done) : done()));
}
