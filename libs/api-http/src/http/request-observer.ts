import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestLogContext, type Logger, type ServiceMetrics } from '@dob/observability';

/**
 * Per request: the request's logger becomes the context of everything that logs while serving it (Nest's Logger
 * included), and one JSON line plus one histogram sample record its outcome when the response is sent. The route
 * label is the route template (`/api/agent/pools/:address`), never the raw URL, so the series stay few; requests
 * that matched no route share `unmatched`.
 */
export function installRequestObserver(fastify: FastifyInstance, metrics?: ServiceMetrics): void {
  const enter = (request: FastifyRequest, _reply: FastifyReply, done: () => void) => requestLogContext.run(request.log as Logger, done);
  fastify.addHook('onRequest', enter);
  // Again once the body is parsed: body parsing resumed in the socket's async context on the Node versions of
  // fastify/fastify#3570; Node 24 keeps the context (request-logs.e2e-spec), the second entry costs nothing.
  fastify.addHook('preHandler', enter);
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const route = request.routeOptions?.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    metrics?.httpRequestDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, seconds);
    request.log.info(
      { method: request.method, url: request.url, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request completed',
    );
    done();
  });
}
