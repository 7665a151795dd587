import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface McpHttpOptions {
  readonly port: number;
  /** Loopback by default: a local signer must not be reachable from the network. */
  readonly host?: string;
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  readonly bearerToken?: string;
  /** A local signer behind these tools: off loopback, then, only with a bearer token. */
  readonly signerConfigured?: boolean;
}

export interface RunningMcpHttp {
  readonly url: string;
  close(): Promise<void>;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

const jsonRpcError = (res: ServerResponse, status: number, message: string) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));

/**
 * MCP over Streamable HTTP at `/mcp` (spec 2025-11-25, "Transports"): a session per client, each with its own
 * Server on the shared toolkit; `Mcp-Session-Id` routes later requests, DELETE ends a session. On loopback, a Host
 * or Origin that is not loopback is refused (the DNS-rebinding defence the MCP specification asks local servers for).
 * Off loopback with a local signer it starts only with a bearer token, which every request must then carry (the
 * spec's "Authorization" section: HTTP transports should authenticate; a static bearer token is the simplest form).
 */
export async function startMcpHttp(newServer: () => Server, options: McpHttpOptions): Promise<RunningMcpHttp> {
  const host = options.host ?? '127.0.0.1';
  const loopbackOnly = host === '127.0.0.1' || host === 'localhost' || host === '::1';
  if (!loopbackOnly && options.signerConfigured && !options.bearerToken) {
    throw new Error(
      `refusing to serve MCP on ${host} with a local signer and no MCP_HTTP_TOKEN: anyone who reaches the port could spend the wallet's daily limit`,
    );
  }
  const authorized = bearerCheck(options.bearerToken);
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: Server }>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (new URL(req.url ?? '/', 'http://mcp.local').pathname !== '/mcp') return jsonRpcError(res, 404, 'Not found: the MCP endpoint is /mcp');
    if (loopbackOnly && !isLoopbackRequest(req)) return jsonRpcError(res, 403, 'Forbidden: this MCP server accepts loopback hosts and origins only');
    if (!authorized(req.headers.authorization)) {
      res.setHeader('www-authenticate', 'Bearer');
      return jsonRpcError(res, 401, 'Unauthorized: this MCP server requires Authorization: Bearer <MCP_HTTP_TOKEN>');
    }
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (existing) return existing.transport.handleRequest(req, res);
    if (sessionId !== undefined) return jsonRpcError(res, 404, 'Session not found');

    const server = newServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { transport, server }),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res);
    // Anything but an initialize request opens no session: drop the server it would have had.
    if (!transport.sessionId) await server.close();
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((e) => {
      if (!res.headersSent) jsonRpcError(res, 500, e instanceof Error ? e.message : String(e));
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, host, () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`,
    close: async () => {
      for (const { server } of sessions.values()) await server.close().catch(() => undefined);
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** Compared as SHA-256 digests with timingSafeEqual: equal lengths, and no timing tells how much of a guess matched. */
function bearerCheck(token: string | undefined): (header: string | undefined) => boolean {
  if (!token) return () => true;
  const expected = createHash('sha256').update(token).digest();
  return (header) => {
    const given = /^Bearer (.+)$/i.exec(header ?? '')?.[1];
    return given !== undefined && timingSafeEqual(createHash('sha256').update(given).digest(), expected);
  };
}

function isLoopbackRequest(req: IncomingMessage): boolean {
  const hostName = (req.headers.host ?? '').replace(/:\d+$/, '');
  if (!LOOPBACK_NAMES.has(hostName)) return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return LOOPBACK_NAMES.has(new URL(origin).hostname);
  } catch {
    return false;
  }
}
