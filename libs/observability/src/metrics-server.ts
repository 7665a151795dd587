import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServiceMetrics } from './metrics';

/** What GET /health/live answers: the process runs its event loop. It never touches storage. */
export function liveness(): { status: 'alive'; uptime_seconds: number } {
  return { status: 'alive', uptime_seconds: Math.round(process.uptime()) };
}

/**
 * /metrics and /health/live for an app that has no HTTP server of its own (indexer, projector, notifier running
 * alone; METRICS_PORT). node:http only: these apps stay free of a web framework.
 */
export async function startMetricsServer(metrics: ServiceMetrics, port: number, host = '0.0.0.0'): Promise<{ readonly port: number; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/metrics') {
      metrics.render().then(
        ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
        (e: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(e.message),
      );
    } else if (req.method === 'GET' && path === '/health/live') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(liveness()));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"success":false,"error":{"code":"NOT_FOUND","message":"Route not found"}}');
    }
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
