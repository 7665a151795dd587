import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ConfigError } from '@dob/runtime';
import { composeAgentToolkit } from './compose-toolkit';
import { startMcpHttp } from './http-transport';
import { loadMcpConfig } from './mcp-config';
import { createMcpServer } from './mcp-server';

/**
 * `npm run -s mcp`: the Agent API as an MCP server for LLM agents, against `npm start` (DOB_API_URL overrides).
 * stdio by default (how agents launch MCP servers); `--http [port]` or MCP_HTTP_PORT serves Streamable HTTP at /mcp.
 * Logs go to stderr: on stdio, stdout carries the protocol.
 */
async function main(): Promise<void> {
  const log = (line: string) => process.stderr.write(`[dob-mcp] ${line}\n`);
  const config = loadMcpConfig();
  const toolkit = composeAgentToolkit(config, log);
  const httpPort = httpPortFromArgs(process.argv.slice(2)) ?? config.MCP_HTTP_PORT;

  if (httpPort !== undefined) {
    const http = await startMcpHttp(() => createMcpServer(toolkit), {
      port: httpPort,
      host: config.MCP_HTTP_HOST,
      bearerToken: config.MCP_HTTP_TOKEN,
      signerConfigured: toolkit.hasLocalSigner,
    }).catch((e: Error) => {
      throw new ConfigError(e.message);
    });
    log(`Streamable HTTP at ${http.url}, Agent API ${config.DOB_API_URL}`);
    const stop = () => void http.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return;
  }
  const server = createMcpServer(toolkit);
  await server.connect(new StdioServerTransport());
  log(`stdio, Agent API ${config.DOB_API_URL}`);
  // The client closing stdin ends the session and the process.
  process.stdin.once('end', () => void server.close().then(() => process.exit(0)));
}

/** `--http` alone serves on 3100; `--http 0` picks a free port. */
function httpPortFromArgs(args: string[]): number | undefined {
  const at = args.indexOf('--http');
  if (at < 0) return undefined;
  const value = args[at + 1];
  if (value === undefined || value.startsWith('--')) return 3100;
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new ConfigError(`--http takes a port number, got "${value}"`);
  return Number(value);
}

main().catch((e) => {
  process.stderr.write(`${e instanceof ConfigError ? e.message : e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
