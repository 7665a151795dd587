import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';

/** One request as the receiver saw it: the exact raw body bytes and the headers. */
export interface ReceivedRequest {
  readonly raw: Buffer;
  readonly headers: IncomingHttpHeaders;
  readonly receivedAt: number;
  /** The request's path (which webhook's URL it was sent to). */
  readonly path: string;
}

export interface TestReceiver {
  /** `https://localhost:<port>` (the certificate names localhost and 127.0.0.1). */
  readonly origin: string;
  readonly port: number;
  /** PEM to trust (self-signed). */
  readonly cert: string;
  readonly requests: ReceivedRequest[];
  /** Decides the status of each request (default 200). */
  respond: (req: ReceivedRequest, path: string) => number;
  close(): Promise<void>;
}

/**
 * A local HTTPS webhook receiver for tests and the benchmark, with a self-signed certificate made by the
 * `selfsigned` package (node crypto underneath). Point the sender's `ca` at `cert` and allow-list localhost.
 */
export async function startTestReceiver(): Promise<TestReceiver> {
  // selfsigned is a devDependency: loaded lazily so production code never needs it.
  const selfsigned = await import('selfsigned');
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  const requests: ReceivedRequest[] = [];
  const receiver: TestReceiver = {
    origin: '',
    port: 0,
    cert: pems.cert,
    requests,
    respond: () => 200,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server: Server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got: ReceivedRequest = { raw: Buffer.concat(chunks), headers: req.headers, receivedAt: Date.now(), path: req.url ?? '/' };
      requests.push(got);
      res.statusCode = receiver.respond(got, req.url ?? '/');
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return Object.assign(receiver, { port, origin: `https://localhost:${port}` });
}
