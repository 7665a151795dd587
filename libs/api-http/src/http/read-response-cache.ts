import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RequestWithAgent } from '../access/agent-principal';
import { onMatchedRoutes } from './route-hooks';

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
const KEY = Symbol('readResponseCacheKey');
type Marked = FastifyRequest & { [ENTERED]?: number; [KEY]?: string };

/**
 * The entry's key: the matched route's template and the query string as sent. Never the raw path: the router
 * serves one route under several spellings (percent-encoded, absolute-form), which would each get an entry.
 */
function keyOf(route: string, url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? route : route + url.slice(q);
}

/**
 * The serialised bytes of 200 answers of CACHED_READ_ROUTES, keyed by the route and the exact query string, kept
 * until the read models change. A hit is answered in an onRequest hook of those routes that runs after the request
 * gate's (key, rate limit, rate-limit headers; bootstrap installs this one later), only for a key with the read scope; anything else goes on to Nest, whose guard, validation
 * and controller give the usual answer or refusal. A URL only gets an entry after Nest answered it 200, so the same
 * URL validates the same way; an answer whose request began before a change is not stored. Hits skip Nest's router,
 * guard, validation pipe, the query bus and JSON serialisation: what profiling showed a cached read spent its time on.
 */
export function installReadResponseCache(fastify: FastifyInstance, options: ReadResponseCacheOptions): void {
  const maxEntries = options.maxEntries ?? 500;
  const maxAgeMs = options.maxAgeMs ?? 1000;
  // Ages on the monotonic clock: on the wall clock a step back (NTP, a resumed VM) made old answers look young.
  const clock = options.clock ?? (() => performance.now());
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

  const lookUpFor = (route: string) => (request: Marked, reply: FastifyReply, done: () => void) => {
    if (request.method !== 'GET') return done();
    if (!(request as unknown as RequestWithAgent).agentAuth?.principal?.scopes.includes('read')) return done();
    const g = current();
    if (g === undefined) return done();
    const key = keyOf(route, request.url);
    const hit = entries.get(key);
    if (hit && clock() - hit.at <= maxAgeMs) {
      void reply.code(200).header('content-type', hit.contentType).send(hit.body);
      return; // answered: the route handler (Nest) does not run
    }
    request[ENTERED] = g;
    request[KEY] = key;
    done();
  };
  onMatchedRoutes(fastify, (url, method) => method === 'GET' && CACHED_READ_ROUTES.has(url), lookUpFor);

  fastify.addHook('onSend', (request: Marked, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) => {
    const entered = request[ENTERED];
    const key = request[KEY];
    if (entered !== undefined && key !== undefined && reply.statusCode === 200 && typeof payload === 'string' && current() === entered) {
      entries.delete(key);
      entries.set(key, { body: Buffer.from(payload, 'utf8'), contentType: String(reply.getHeader('content-type')), at: clock() });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    }
    done(null, payload);
  });
}
