import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { startMcpHttp, type RunningMcpHttp } from './http-transport';

const newServer = () => new Server({ name: 'test', version: '0' }, { capabilities: {} });
const TOKEN = 't'.repeat(40);
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '0' } },
};

async function post(url: string, authorization?: string): Promise<number> {
  const res = await fetch(url.replace('0.0.0.0', '127.0.0.1'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify(initialize),
    signal: AbortSignal.timeout(10_000),
  });
  await res.body?.cancel();
  return res.status;
}

describe('MCP Streamable HTTP and the local signer', () => {
  let running: RunningMcpHttp | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it('refuses to bind off loopback with a signer and no bearer token', async () => {
    await expect(startMcpHttp(newServer, { port: 0, host: '0.0.0.0', signerConfigured: true })).rejects.toThrow(
      'refusing to serve MCP on 0.0.0.0 with a local signer and no MCP_HTTP_TOKEN',
    );
  });

  it('off loopback with a token, requires it on every request', async () => {
    running = await startMcpHttp(newServer, { port: 0, host: '0.0.0.0', signerConfigured: true, bearerToken: TOKEN });
    expect(await post(running.url)).toBe(401);
    expect(await post(running.url, `Bearer ${'x'.repeat(40)}`)).toBe(401);
    expect(await post(running.url, `Basic ${TOKEN}`)).toBe(401);
    expect(await post(running.url, `Bearer ${TOKEN}`)).toBe(200);
  });

  it('on loopback without a token, serves as before', async () => {
    running = await startMcpHttp(newServer, { port: 0, signerConfigured: true });
    expect(await post(running.url)).toBe(200);
  });
});
