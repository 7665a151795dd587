import { isJsonObject } from '@dob/domain';
import {
  prepareTrade,
  submitTrade,
  TRADE_KINDS,
  unwrap,
  type AgentClient,
  type OpenApiDocument,
  type PrepareRequest,
  type TradeKind,
} from '@dobprotocol/agent-client';
import { operationInput, type JsonSchema, type OperationInput } from '../openapi/operation-input';
import type { LocalSigner } from '../signer/local-signer';
import { invocationOf } from '../signer/transaction-facts';
import { API_TOOLS, type ApiToolSpec } from './catalog';
import { summarizeTrade } from './trade-summary';
import { failure, success, type ToolOutcome } from './tool-result';

export interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: JsonSchema & { type: 'object' };
  readonly annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

export interface ResourceDefinition {
  readonly uri: string;
  readonly name: string;
  readonly description: string;
  readonly mimeType: 'application/json';
}

export interface AgentToolkitOptions {
  readonly client: AgentClient;
  /** The OpenAPI document tool inputs are derived from (the agent client's: what its types were generated from). */
  readonly document: OpenApiDocument;
  /** Filled in when a tool call leaves network_id out. */
  readonly networkId: number;
  readonly signer?: LocalSigner;
  /** Gets an API key when the client has none (the local signer registers its wallet). */
  readonly provisionApiKey?: () => Promise<void>;
}

interface Tool {
  readonly definition: ToolDefinition;
  /** Auth tools run without an API key; everything else needs one. */
  readonly needsKey: boolean;
  run(args: Record<string, unknown>): Promise<ToolOutcome>;
}

type Untyped = (path: string, init: Record<string, unknown>) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
const METHOD = { get: 'GET', post: 'POST', put: 'PUT', delete: 'DELETE' } as const;
const ANNOTATIONS: Record<ApiToolSpec['group'], ToolDefinition['annotations']> = {
  auth: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  read: { readOnlyHint: true, openWorldHint: false },
  prepare: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  webhooks: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
};
const POOLS_PER_PAGE = 100;
const MAX_CATALOGUE_PAGES = 10;

/**
 * The Agent API as tools and resources for an LLM agent, independent of the protocol (apps/mcp adapts it to MCP).
 * Inputs come from the OpenAPI operations; calls go through the typed agent client; prepare results carry a
 * human-readable summary; signing stays with the agent unless a local signer with a spending policy is configured.
 */
export class AgentToolkit {
  private readonly tools = new Map<string, Tool>();

  constructor(private readonly o: AgentToolkitOptions) {
    const defaults = { network_id: o.networkId };
    for (const spec of API_TOOLS) this.add(this.apiTool(spec, operationInput(o.document, spec.method, spec.path, defaults)));
    this.add(this.submitTool(defaults));
    if (o.signer) this.add(this.signAndSubmitTool(o.signer));
    this.add(this.statusTool());
  }

  /** Whether tools here sign with a local key (the HTTP transport then needs a token off loopback). */
  get hasLocalSigner(): boolean {
    return this.o.signer !== undefined;
  }

  definitions(): ToolDefinition[] {
    return [...this.tools.values()].map((t) => t.definition);
  }

  async call(name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
    const tool = this.tools.get(name);
    if (!tool) return failure(new Error(`unknown tool ${name}`));
    try {
      if (tool.needsKey) await this.ensureApiKey();
      return await tool.run(args);
    } catch (e) {
      return failure(e);
    }
  }

  resources(): ResourceDefinition[] {
    return [
      {
        uri: 'dob://pools',
        name: 'Pool catalogue',
        description: `Every pool on network ${this.o.networkId}: address, name, ticker, access and distribution type, APR, members.`,
        mimeType: 'application/json',
      },
      { uri: 'dob://pools/featured', name: 'Featured pools', description: 'Operator picks and top pools.', mimeType: 'application/json' },
    ];
  }

  resourceTemplates(): { uriTemplate: string; name: string; description: string; mimeType: 'application/json' }[] {
    return [{ uriTemplate: 'dob://pools/{address}', name: 'Pool detail', description: 'One pool by contract address.', mimeType: 'application/json' }];
  }

  async readResource(uri: string): Promise<{ uri: string; mimeType: 'application/json'; text: string }> {
    await this.ensureApiKey();
    const network_id = this.o.networkId;
    const api = this.o.client.api;
    let body: unknown;
    if (uri === 'dob://pools') {
      const pools: unknown[] = [];
      let total = 0;
      for (let page = 1; page <= MAX_CATALOGUE_PAGES; page++) {
        const r = await unwrap(api.GET('/api/agent/pools', { params: { query: { network_id, page, limit: POOLS_PER_PAGE } } }));
        pools.push(...(r.data ?? []));
        total = r.meta?.total ?? pools.length;
        if (pools.length >= total || (r.data ?? []).length < POOLS_PER_PAGE) break;
      }
      body = { network_id, total, pools };
    } else if (uri === 'dob://pools/featured') {
      body = (await unwrap(api.GET('/api/agent/pools/featured', { params: { query: { network_id } } }))).data;
    } else {
      const address = /^dob:\/\/pools\/([A-Z0-9]{56})$/.exec(uri)?.[1];
      if (!address) throw new Error(`unknown resource ${uri}`);
      body = (await unwrap(api.GET('/api/agent/pools/{address}', { params: { path: { address }, query: { network_id } } }))).data;
    }
    return { uri, mimeType: 'application/json', text: JSON.stringify(body) };
  }

  private add(tool: Tool): void {
    if (this.tools.has(tool.definition.name)) throw new Error(`duplicate tool ${tool.definition.name}`);
    this.tools.set(tool.definition.name, tool);
  }

  private async ensureApiKey(): Promise<void> {
    if (this.o.client.apiKey()) return;
    if (this.o.provisionApiKey) return this.o.provisionApiKey();
    throw new Error(
      'No API key: set DOB_API_KEY, or sign in with get_auth_challenge and register_api_key, or configure a local signer (DOB_SIGNER_SECRET) to register one.',
    );
  }

  private apiTool(spec: ApiToolSpec, input: OperationInput): Tool {
    const definition: ToolDefinition = {
      name: spec.name,
      title: spec.title,
      description: [spec.description, input.summary].filter(Boolean).join(' '),
      inputSchema: input.inputSchema,
      annotations: ANNOTATIONS[spec.group],
    };
    const request = async (args: Record<string, unknown>) => {
      const { path, query, body } = input.split(args);
      const call = (this.o.client.api as unknown as Record<string, Untyped>)[METHOD[spec.method]];
      return unwrap(call(spec.path, { params: { path, query }, ...(body ? { body } : {}) })) as Promise<{ data?: unknown; meta?: unknown; message?: string }>;
    };
    if (spec.kind) return { definition, needsKey: true, run: (args) => this.prepare(spec.kind!, input, args) };
    if (spec.name === 'register_api_key') {
      return {
        definition,
        needsKey: false,
        run: async (args) => {
          const r = await request(args);
          const data = isJsonObject(r.data) ? r.data : {};
          const key = isJsonObject(data.api_key) ? data.api_key : {};
          if (typeof key.key !== 'string' || !key.key) throw new Error('register answered without a key');
          this.o.client.setApiKey(key.key);
          return success(
            { ...data, api_key: { ...key, key: `${key.key_prefix}… (held by this server for this process)` } },
            'Registered: this server now calls the API with the new key.',
          );
        },
      };
    }
    return {
      definition,
      needsKey: spec.group !== 'auth',
      run: async (args) => {
        const r = await request(args);
        return success({ data: r.data, ...(r.meta ? { meta: r.meta } : {}) });
      },
    };
  }

  private async prepare(kind: TradeKind, input: OperationInput, args: Record<string, unknown>): Promise<ToolOutcome> {
    const { body } = input.split(args);
    const trade = await prepareTrade(this.o.client, kind, body as PrepareRequest<typeof kind>);
    const pool = invocationOf(trade.xdr, trade.networkPassphrase).contract;
    const summary = summarizeTrade(trade, pool);
    const data: Record<string, unknown> = {
      prepared_id: trade.hash,
      kind,
      summary,
      xdr: trade.xdr,
      network_passphrase: trade.networkPassphrase,
      network_id: trade.networkId,
      transaction_details: trade.details,
      expires_at: trade.expiresAt,
    };
    if (this.o.signer) {
      const { decision } = this.o.signer.remember(trade);
      data.local_signer = decision.allowed ? 'within the spending policy' : decision.reason;
      data.next = decision.allowed ? `call sign_and_submit with prepared_id ${trade.hash}` : 'the local signer will refuse this transaction';
    } else {
      data.next = `sign the xdr with the wallet's key (network passphrase above) and call submit_signed_transaction with kind "${kind}"`;
    }
    return success(data, summary);
  }

  private submitTool(defaults: Record<string, unknown>): Tool {
    const input = operationInput(this.o.document, 'post', '/api/agent/marketplace/submit-buy', defaults);
    const definition: ToolDefinition = {
      name: 'submit_signed_transaction',
      title: 'Submit a signed transaction',
      description:
        "Send a transaction prepared by a prepare_* tool and signed by the wallet; kind names the prepare it came from. The API accepts only transactions it prepared, signed by the key's wallet, before they expire.",
      inputSchema: {
        ...input.inputSchema,
        properties: { kind: { type: 'string', enum: TRADE_KINDS, description: 'buy, list, cancel, contribute or reclaim' }, ...input.inputSchema.properties },
        required: ['kind', ...(input.inputSchema.required ?? [])],
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    };
    return {
      definition,
      needsKey: true,
      run: async ({ kind, ...rest }) => {
        if (!TRADE_KINDS.includes(kind as TradeKind)) throw new Error(`kind must be one of ${TRADE_KINDS.join(', ')}`);
        const { body } = input.split(rest);
        const result = (await submitTrade(this.o.client, kind as TradeKind, String(body!.signed_xdr), Number(body!.network_id))) as {
          data?: Record<string, unknown>;
        };
        return success({ kind, ...(result.data ?? {}) }, `Submitted: the ${kind} is on chain.`);
      },
    };
  }

  private signAndSubmitTool(signer: LocalSigner): Tool {
    return {
      definition: {
        name: 'sign_and_submit',
        title: 'Sign locally and submit',
        description: `Sign a transaction this server prepared (prepared_id from a prepare_* tool) with the local signer's key (wallet ${signer.wallet}) and submit it. Refused when it breaks the spending policy a person set (daily total, price per share, allowed pools); see get_agent_status.`,
        inputSchema: {
          type: 'object',
          properties: {
            prepared_id: {
              type: 'string',
              description: 'prepared_id returned by prepare_buy, prepare_list, prepare_cancel, prepare_contribute or prepare_reclaim',
            },
          },
          required: ['prepared_id'],
          additionalProperties: false,
        },
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      },
      needsKey: true,
      run: async ({ prepared_id }) => {
        if (typeof prepared_id !== 'string') throw new Error('prepared_id is required');
        const { trade, result } = await signer.signAndSubmit(this.o.client, prepared_id);
        const data = (result as { data?: Record<string, unknown> }).data ?? {};
        return success({ kind: trade.kind, ...data }, `Signed locally and submitted: the ${trade.kind} is on chain.`);
      },
    };
  }

  private statusTool(): Tool {
    return {
      definition: {
        name: 'get_agent_status',
        title: 'Agent status',
        description:
          'Which API and network this server uses, whether it holds an API key, and who signs: the agent itself, or the local signer with its spending policy and what it spent in the last 24 hours.',
        inputSchema: { type: 'object', properties: {}, additionalProperties: false },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      needsKey: false,
      run: async () =>
        success({
          api: this.o.client.baseUrl,
          network_id: this.o.networkId,
          api_key: this.o.client.apiKey()
            ? 'set'
            : this.o.provisionApiKey
              ? 'registered on first use by the local signer'
              : 'none: use get_auth_challenge and register_api_key',
          signing: this.o.signer
            ? { by: 'local signer', ...this.o.signer.status() }
            : { by: 'the agent: prepare_* returns unsigned XDR, submit_signed_transaction sends it signed' },
        }),
    };
  }
}
