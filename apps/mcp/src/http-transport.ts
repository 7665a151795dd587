import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface McpHttpOptions {
  readonly port: number;
  /** Loopback by default: a local signer must not be reachable from the network. */
  readonly host?: string;
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
 */
export async function startMcpHttp(newServer: () => Server, options: McpHttpOptions): Promise<RunningMcpHttp> {
  const host = options.host ?? '127.0.0.1';
  const loopbackOnly = host === '127.0.0.1' || host === 'localhost' || host === '::1';
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: Server }>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (new URL(req.url ?? '/', 'http://mcp.local').pathname !== '/mcp') return jsonRpcError(res, 404, 'Not found: the MCP endpoint is /mcp');
    if (loopbackOnly && !isLoopbackRequest(req)) return jsonRpcError(res, 403, 'Forbidden: this MCP server accepts loopback hosts and origins only');
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
