import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RequestWithAgent } from '../auth/agent-principal';

/**
 * Which reads may be answered from the response cache: the route templates whose answer is a function of the URL and
 * the read models alone — no caller (portfolio is per wallet), no clock (pool detail's next distribution, featured's
 * 24 h volume, rounds' status, campaigns' deadlines are computed at request time). With the read scope they require.
 */
export const CACHED_READ_ROUTES: ReadonlySet<string> = new Set(['/api/agent/pools', '/api/agent/marketplace/listings']);

export interface ReadResponseCacheOptions {
  /**
   * The read models' change count (the read-result cache's generation, moved by every projection commit), or
   * undefined while changes cannot be observed — then nothing is served from or stored in this cache.
   */
  readonly changes: () => number | undefined;
  readonly maxEntries?: number;
  /** Longest an answer is served without the read models being asked again (the same bound as the read-result cache). */
  readonly maxAgeMs?: number;
  readonly clock?: () => number;
}

interface Entry {
  /** UTF-8 bytes, encoded once: writing a 10 kB string to the socket re-encoded it on every request (the profile's top item). */
  readonly body: Buffer;
  readonly contentType: string;
  readonly at: number;
}

const ENTERED = Symbol('readResponseCacheGeneration');
type Marked = FastifyRequest & { [ENTERED]?: number };

/**
 * The serialised bytes of 200 answers of CACHED_READ_ROUTES, keyed by the exact URL (path and query string), kept
 * until the read models change. A hit is answered in an onRequest hook that runs after the request gate's (key, rate
 * limit, rate-limit headers; bootstrap installs this one later), only for a key with the read scope; anything else goes on to Nest, whose guard, validation
 * and controller give the usual answer or refusal. A URL only gets an entry after Nest answered it 200, so the same
 * URL validates the same way; an answer whose request began before a change is not stored. Hits skip Nest's router,
 * guard, validation pipe, the query bus and JSON serialisation: what profiling showed a cached read spent its time on.
 */
export function installReadResponseCache(fastify: FastifyInstance, options: ReadResponseCacheOptions): void {
  const maxEntries = options.maxEntries ?? 500;
  const maxAgeMs = options.maxAgeMs ?? 1000;
  const clock = options.clock ?? Date.now;
  const entries = new Map<string, Entry>();
  let generation: number | undefined;

  /** The cache's generation now; entries of an earlier one are dropped. */
  const current = (): number | undefined => {
    const g = options.changes();
    if (g !== generation) {
      entries.clear();
      generation = g;
    }
    return g;
  };

  fastify.addHook('onRequest', (request: Marked, reply: FastifyReply, done: () => void) => {
    if (request.method !== 'GET' || !CACHED_READ_ROUTES.has(request.routeOptions.url ?? '')) return done();
    if (!(request as unknown as RequestWithAgent).agentAuth?.principal?.scopes.includes('read')) return done();
    const g = current();
    if (g === undefined) return done();
    const hit = entries.get(request.url);
    if (hit && clock() - hit.at <= maxAgeMs) {
      void reply.code(200).header('content-type', hit.contentType).send(hit.body);
      return; // answered: the route handler (Nest) does not run
    }
    request[ENTERED] = g;
    done();
  });

  fastify.addHook('onSend', (request: Marked, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) => {
    const entered = request[ENTERED];
    if (entered !== undefined && reply.statusCode === 200 && typeof payload === 'string' && current() === entered) {
      entries.delete(request.url);
      entries.set(request.url, { body: Buffer.from(payload, 'utf8'), contentType: String(reply.getHeader('content-type')), at: clock() });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    }
    done(null, payload);
  });
}
