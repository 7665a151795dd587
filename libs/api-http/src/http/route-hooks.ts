import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

export type OnRequestHook = (request: FastifyRequest, reply: FastifyReply, done: () => void) => void;

/**
 * Adds `hookFor(template)` as an onRequest hook of every route registered from now on whose template
 * (`routeOptions.url`, e.g. `/api/agent/pools/:address`) and method pass `applies`, after the route's own onRequest
 * hooks and those added earlier this way. Route-level hooks run after the global ones and only once the router
 * matched, whatever the spelling of the URL; reading the route per request instead would cost an object per request
 * (Fastify builds a new one on every read of `request.routeOptions`). Fastify docs: Hooks → onRoute.
 */
export function onMatchedRoutes(
  fastify: FastifyInstance,
  applies: (template: string, method: RouteOptions['method']) => boolean,
  hookFor: (template: string) => OnRequestHook,
): void {
  const added = new WeakSet<OnRequestHook>();
  fastify.addHook('onRoute', (route: RouteOptions) => {
    if (!applies(route.url, route.method)) return;
    const own = (route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]) as OnRequestHook[];
    if (own.some((h) => added.has(h))) return;
    const hook = hookFor(route.url);
    added.add(hook);
    // A new array: Fastify's HEAD twin of a GET route is a shallow copy of its options, registered (and seen here) later.
    route.onRequest = [...own, hook] as RouteOptions['onRequest'];
  });
}
