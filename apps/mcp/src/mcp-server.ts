import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { AgentToolkit } from '@dob/agent-tools';

export const MCP_SERVER_INFO = { name: 'dob-agent-api', version: '0.1.0' } as const;

/**
 * One MCP server session over the toolkit, with the SDK's low-level Server: the tools' input schemas are the JSON
 * Schemas derived from the API's OpenAPI document, which McpServer.registerTool (zod shapes) would make us
 * rewrite. Tool failures are results with isError (the model reads them); protocol misuse is a JSON-RPC error.
 */
export function createMcpServer(toolkit: AgentToolkit): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {}, resources: {} },
    instructions:
      'DobProtocol Agent API: discover Stellar distribution pools, trade their shares and contribute to crowdfunding. ' +
      'Every on-chain action is prepare_* (returns an unsigned transaction and a summary to check) → sign → submit. ' +
      'Call get_agent_status first: it says whether the agent signs (submit_signed_transaction) or a local signer does (sign_and_submit, within a spending policy).',
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolkit.definitions() }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const outcome = await toolkit.call(request.params.name, request.params.arguments ?? {});
    return {
      content: [{ type: 'text' as const, text: outcome.text }],
      ...(outcome.data ? { structuredContent: outcome.data } : {}),
      ...(outcome.isError ? { isError: true } : {}),
    };
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: toolkit.resources() }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: toolkit.resourceTemplates() }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    try {
      return { contents: [await toolkit.readResource(request.params.uri)] };
    } catch (e) {
      throw new McpError(ErrorCode.InvalidParams, e instanceof Error ? e.message : String(e));
    }
  });
  return server;
}
