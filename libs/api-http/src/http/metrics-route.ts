import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ServiceMetrics } from '@dob/observability';
import { failure } from './envelope';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * GET /metrics on the API port: Prometheus text format for a scraper holding the bearer token (Prometheus
 * scrape_config `authorization: { credentials: … }`); anyone else gets 401 and not a byte of it — the series name
 * routes, queue depths and key activity an outsider has no business seeing. Compared in constant time (digests of
 * equal length, so the token's length does not leak either). Outside /api/agent: no API key, no rate limit.
 */
export function mountMetrics(fastify: FastifyInstance, metrics: ServiceMetrics, token: string): void {
  const expected = digest(`Bearer ${token}`);
  fastify.get('/metrics', async (request, reply) => {
    const sent = request.headers.authorization;
    if (typeof sent !== 'string' || !timingSafeEqual(digest(sent), expected)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="metrics"')
        .send(failure('UNAUTHORIZED', 'GET /metrics needs the metrics bearer token', undefined, request.id));
    }
    const { contentType, body } = await metrics.render();
    return reply.header('content-type', contentType).send(body);
  });
}
