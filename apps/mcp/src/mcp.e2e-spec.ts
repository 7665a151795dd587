import { request as httpRequest } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, rpc } from '@stellar/stellar-sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createAgentClient, registerAgent, signChallenge, signPreparedTrade, unwrap } from '@dobprotocol/agent-client';
import { formatDecimal, parseDecimal } from '@dob/agent-tools';
import { startSystem, type RunningSystem } from '../../all/src/system';
import { settled } from '../../../test/system-waits';
import { composeAgentToolkit } from './compose-toolkit';
import { startMcpHttp, type RunningMcpHttp } from './http-transport';
import { loadMcpConfig } from './mcp-config';
import { createMcpServer } from './mcp-server';

/**
 * The MCP server driven by the official SDK's own Client against the running system (devnet → indexer →
 * projections → API): over stdio exactly as an agent host launches it (`npm --prefix <repo> run -s mcp`), with a
 * local signer that completes a devnet buy and then refuses the next one over its
 * daily limit; over Streamable HTTP with the agent signing for itself.
 */
jest.setTimeout(300_000);

const ROOT = join(__dirname, '../../..');
type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('MCP server on the running system', () => {
  let system: RunningSystem;
  let dataDir: string;
  let chain: rpc.Server;
  const fund = async (kp: Keypair) => expect((await fetch(`${system.friendbotUrl}?addr=${kp.publicKey()}`)).status).toBe(200);
  const structured = (r: unknown) => (r as { structuredContent: Structured }).structuredContent;
  const text = (r: unknown) => (r as { content: { type: string; text: string }[] }).content[0].text;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mcp-e2e-'));
    system = await startSystem({ dataDir, port: 0, devnetPort: 0, quiet: true });
    chain = new rpc.Server(system.rpcUrl, { allowHttp: true });
    await settled(system, 180_000);
  });

  afterAll(async () => {
    await system?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('over stdio with a local signer', () => {
    const wallet = Keypair.random();
    let mcp: Client;
    let stderr = '';
    let price: string;
    let listingId: string;

    beforeAll(async () => {
      await fund(wallet);
      // The cheapest listing sets the policy: one share fits today's limit (1.5 shares' worth), a second does not.
      const reader = createAgentClient({ baseUrl: system.apiUrl });
      await registerAgent(reader, Keypair.random(), { label: 'mcp e2e reader', scopes: ['read'] });
      const cheapest = (await unwrap(reader.api.GET('/api/agent/marketplace/listings', { params: { query: { network_id: 9, sort: 'price_asc', limit: 1 } } })))
        .data![0];
      price = cheapest.price_per_share!;
      listingId = cheapest.sale_address!;
      // Launched as the README tells an agent host to: npm, silent (npm's banner would otherwise go to stdout).
      const transport = new StdioClientTransport({
        command: 'npm',
        args: ['--prefix', ROOT, 'run', '-s', 'mcp'],
        cwd: tmpdir(),
        stderr: 'pipe',
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          DOB_API_URL: system.apiUrl,
          DOB_SIGNER_SECRET: wallet.secret(),
          DOB_POLICY_MAX_PER_DAY: `USDC:${formatDecimal((parseDecimal(price) * 3n) / 2n)}`,
          DOB_POLICY_MAX_PRICE_PER_SHARE: `USDC:${price}`,
          DOB_MCP_STATE_DIR: join(dataDir, 'mcp-state'),
          DOB_NETWORK_PASSPHRASE: system.networkPassphrase,
          DOB_SIGNER_TOKENS: `USDC=${system.devnet!.paymentToken}`,
        },
      });
      transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      mcp = new Client({ name: 'mcp-e2e', version: '1.0.0' });
      await mcp.connect(transport);
    });

    afterAll(async () => {
      await mcp?.close();
    });

    it('lists the tools, with input schemas from the OpenAPI document', async () => {
      const { tools } = await mcp.listTools();
      const names = tools.map((t) => t.name);
      for (const name of [
        'search_pools',
        'get_pool',
        'get_pool_members',
        'get_pool_rounds',
        'search_listings',
        'get_pool_market_stats',
        'get_portfolio_holdings',
        'get_events_after',
        'prepare_buy',
        'prepare_list',
        'prepare_cancel',
        'prepare_contribute',
        'prepare_reclaim',
        'submit_signed_transaction',
        'sign_and_submit',
        'create_webhook',
        'get_agent_status',
      ]) {
        expect(names).toContain(name);
      }
      const search = tools.find((t) => t.name === 'search_pools')!;
      expect(search.inputSchema.properties).toMatchObject({
        sort: { enum: ['created_desc', 'created_asc', 'apr_desc', 'apr_asc', 'members_desc', 'members_asc'] },
        limit: { maximum: 100 },
      });
      const buy = tools.find((t) => t.name === 'prepare_buy')!;
      expect(buy.inputSchema.required).toEqual(['listing_id']);
      expect(buy.annotations).toMatchObject({ readOnlyHint: false });
    });

    it('searches pools', async () => {
      const r = await mcp.callTool({ name: 'search_pools', arguments: { sort: 'members_desc', limit: 3 } });
      expect(r.isError).toBeFalsy();
      const body = structured(r);
      expect(body.data.length).toBeGreaterThan(0);
      expect(body.data.length).toBeLessThanOrEqual(3);
      expect(body.meta).toMatchObject({ page: 1, limit: 3 });
      const members = body.data.map((p: Structured) => p.member_count);
      expect([...members].sort((a: number, b: number) => b - a)).toEqual(members);
    });

    it('prepares a buy with a summary, and the local signer completes it on the devnet', async () => {
      const prepared = await mcp.callTool({ name: 'prepare_buy', arguments: { listing_id: listingId, amount: 1 } });
      expect(prepared.isError).toBeFalsy();
      const p = structured(prepared);
      expect(p.summary).toMatch(
        new RegExp(
          `^Buy 1 shares of pool C[A-Z2-7]{55} from listing ${listingId} .* at ${price.replace('.', '\\.')} USDC per share: total ${price.replace('.', '\\.')} USDC\\.`,
        ),
      );
      expect(text(prepared).startsWith(p.summary)).toBe(true);
      expect(p.local_signer).toBe('within the spending policy');
      expect(typeof p.xdr).toBe('string');

      const done = await mcp.callTool({ name: 'sign_and_submit', arguments: { prepared_id: p.prepared_id } });
      expect(done.isError).toBeFalsy();
      expect(structured(done)).toMatchObject({ kind: 'buy', listing_id: listingId, shares_bought: 1, total_cost: price, transaction_hash: p.prepared_id });
      expect((await chain.getTransaction(p.prepared_id)).status).toBe('SUCCESS');
      // Registered once with the signer's wallet; the key is kept for restarts, never printed.
      expect(readFileSync(join(dataDir, 'mcp-state', `api-key-${wallet.publicKey()}`), 'utf8')).toMatch(/^svc_ak_/);
      expect(stderr).not.toContain(wallet.secret());
    });

    it('refuses a buy over the daily limit with a clear message, and signs nothing', async () => {
      const prepared = structured(await mcp.callTool({ name: 'prepare_buy', arguments: { listing_id: listingId, amount: 1 } }));
      expect(prepared.local_signer).toMatch(/^Refused by the spending policy: .* over the daily limit of /);
      const refused = await mcp.callTool({ name: 'sign_and_submit', arguments: { prepared_id: prepared.prepared_id } });
      expect(refused.isError).toBe(true);
      const limit = formatDecimal((parseDecimal(price) * 3n) / 2n);
      expect(text(refused)).toBe(
        `Refused by the spending policy: ${price} USDC would bring the last 24 hours' spending to ${formatDecimal(parseDecimal(price) * 2n)} USDC, ` +
          `over the daily limit of ${limit} USDC (already spent ${price} USDC, ${formatDecimal(parseDecimal(limit) - parseDecimal(price))} USDC left).`,
      );
      expect((await chain.getTransaction(prepared.prepared_id)).status).toBe('NOT_FOUND');
      const status = structured(await mcp.callTool({ name: 'get_agent_status', arguments: {} }));
      expect(status.signing).toMatchObject({ by: 'local signer', wallet: wallet.publicKey(), spent_last_24h: { USDC: price } });
    });

    it('signs only what it prepared itself', async () => {
      const r = await mcp.callTool({ name: 'sign_and_submit', arguments: { prepared_id: 'ab'.repeat(32) } });
      expect(r.isError).toBe(true);
      expect(text(r)).toContain(`No transaction ${'ab'.repeat(32)} was prepared by this server`);
    });
  });

  describe('over Streamable HTTP with the agent signing for itself', () => {
    let http: RunningMcpHttp;
    let mcp: Client;
    const agent = Keypair.random();

    beforeAll(async () => {
      await fund(agent);
      const toolkit = composeAgentToolkit(loadMcpConfig({ DOB_API_URL: system.apiUrl }), () => undefined);
      http = await startMcpHttp(() => createMcpServer(toolkit), { port: 0 });
      mcp = new Client({ name: 'mcp-e2e-http', version: '1.0.0' });
      await mcp.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    });

    afterAll(async () => {
      await mcp?.close();
      await http?.close();
    });

    it('offers no local signing, and needs an API key before reading', async () => {
      const names = (await mcp.listTools()).tools.map((t) => t.name);
      expect(names).not.toContain('sign_and_submit');
      const r = await mcp.callTool({ name: 'search_pools', arguments: {} });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/^No API key/);
    });

    it('signs in with a challenge the agent signs, prepares, and submits what the agent signed', async () => {
      const challenge = structured(await mcp.callTool({ name: 'get_auth_challenge', arguments: { wallet: agent.publicKey() } }));
      const registered = await mcp.callTool({
        name: 'register_api_key',
        arguments: { wallet: agent.publicKey(), signature: signChallenge(challenge.data.message, agent), label: 'mcp http agent', scopes: ['read', 'trade'] },
      });
      expect(registered.isError).toBeFalsy();
      expect(JSON.stringify(registered)).not.toMatch(/svc_ak_[A-Za-z0-9]{20,}/);

      const listing = structured(await mcp.callTool({ name: 'search_listings', arguments: { sort: 'price_asc', limit: 1 } })).data[0];
      const prepared = structured(await mcp.callTool({ name: 'prepare_buy', arguments: { listing_id: listing.sale_address, amount: 1, network_id: 9 } }));
      expect(prepared.next).toMatch(/submit_signed_transaction/);
      const signed = signPreparedTrade({ xdr: prepared.xdr, networkPassphrase: prepared.network_passphrase }, agent);
      const submitted = await mcp.callTool({ name: 'submit_signed_transaction', arguments: { kind: 'buy', signed_xdr: signed } });
      expect(submitted.isError).toBeFalsy();
      expect(structured(submitted)).toMatchObject({ kind: 'buy', shares_bought: 1, transaction_hash: prepared.prepared_id });
      expect((await chain.getTransaction(prepared.prepared_id)).status).toBe('SUCCESS');
    });

    it('reports API refusals as tool errors with the envelope code', async () => {
      const r = await mcp.callTool({ name: 'prepare_buy', arguments: { listing_id: 'SALE_00000000000000000000000000000000' } });
      expect(r.isError).toBe(true);
      expect(structured(r)).toMatchObject({ code: 'NOT_FOUND', status: 404 });
      const unknownArg = await mcp.callTool({ name: 'search_pools', arguments: { colour: 'blue' } });
      expect(text(unknownArg)).toMatch(/^unknown argument "colour"/);
    });

    it('serves the pool catalogue as resources', async () => {
      const { resources } = await mcp.listResources();
      expect(resources.map((r) => r.uri)).toEqual(['dob://pools', 'dob://pools/featured']);
      const { resourceTemplates } = await mcp.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['dob://pools/{address}']);
      const catalogue = JSON.parse(((await mcp.readResource({ uri: 'dob://pools' })).contents[0] as { text: string }).text);
      expect(catalogue.pools.length).toBe(catalogue.total);
      const address = catalogue.pools[0].address;
      const detail = JSON.parse(((await mcp.readResource({ uri: `dob://pools/${address}` })).contents[0] as { text: string }).text);
      expect(detail).toMatchObject({ address, network_id: 9 });
    });

    it('refuses a request whose Host is not loopback (DNS rebinding)', async () => {
      const { port } = new URL(http.url);
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { host: 'attacker.example', 'content-type': 'application/json' } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end('{}');
      });
      expect(status).toBe(403);
    });
  });
});
