import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { healthHttpStatus, type HealthRegistry } from './health';

const bigintAsText = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);

export interface HealthServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * GET /health for apps without an HTTP API of their own (e.g. the standalone Kafka relay): the registry's report as
 * JSON, with the API's status codes. Plain node:http — a health probe needs no framework.
 */
export async function serveHealth(registry: HealthRegistry, port: number, host = '127.0.0.1'): Promise<HealthServer> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/health') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    registry.report().then(
      (report) => res.writeHead(healthHttpStatus(report), { 'content-type': 'application/json' }).end(JSON.stringify(report, bigintAsText)),
      (e: unknown) => res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'down', error: String(e) })),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${bound}/health`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
