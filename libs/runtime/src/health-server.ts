import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { healthHttpStatus, type HealthRegistry } from './health';

const bigintAsText = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);

/** A health report as JSON: checkpoint positions in its details are bigints (a faulted projection's, for one). */
export function healthJson(report: unknown): string {
  return JSON.stringify(report, bigintAsText);
}

export interface HealthServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * GET /health for the apps without an HTTP API (indexer, projector, notifier on HEALTH_PORT, the relay on
 * RELAY_HEALTH_PORT): the same report and status codes as the API's /health (200 ready or degraded, 503 starting or
 * down), so one probe works for every container. Plain node:http — one route does not need a framework.
 */
export async function startHealthServer(health: HealthRegistry, port: number, host = '0.0.0.0'): Promise<HealthServer> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/health') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not found: GET /health' }));
      return;
    }
    health.report().then(
      (report) => res.writeHead(healthHttpStatus(report), { 'content-type': 'application/json' }).end(healthJson(report)),
      (e: unknown) => res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'down', error: String(e) })),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${bound}/health`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
