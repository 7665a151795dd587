import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, rpc } from '@stellar/stellar-sdk';
import {
  agentApiDocument,
  AgentApiError,
  createAgentClient,
  prepareTrade,
  registerAgent,
  signPreparedTrade,
  submitTrade,
  unwrap,
  type AgentClient,
  type FeedEvent,
} from '@dobprotocol/agent-client';
import { startSystem, type RunningSystem } from '../apps/all/src/system';
import { settled } from './system-waits';

/**
 * The published agent client against the running system (devnet → indexer → projections → API): its types come
 * from the document this system serves, it registers wallets with both signature schemes, buys a listing with
 * prepare → local signature → submit, and reports refusals as AgentApiError with the envelope's code.
 */
jest.setTimeout(300_000);

const NET = 9;

describe('agent client on the running system', () => {
  let system: RunningSystem;
  let dataDir: string;
  const client = (apiKey?: string, retries = 0): AgentClient => createAgentClient({ baseUrl: system.apiUrl, apiKey, retry: { retries } });
  const fund = async (kp: Keypair) => expect((await fetch(`${system.friendbotUrl}?addr=${kp.publicKey()}`)).status).toBe(200);

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-client-'));
    system = await startSystem({ dataDir, port: 0, devnetPort: 0, quiet: true });
    await settled(system, 180_000);
  });

  afterAll(async () => {
    await system?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('was generated from exactly the OpenAPI document this system serves', async () => {
    const served = await (await fetch(`${system.apiUrl}/openapi.json`)).json();
    expect(served).toEqual(agentApiDocument);
  });

  it('registers with a SEP-53 and with a raw ed25519 challenge signature; the key is set on the client', async () => {
    for (const signature of ['sep53', 'raw'] as const) {
      const kp = Keypair.random();
      const agent = client();
      const registered = await registerAgent(agent, kp, { label: `client ${signature}`, scopes: ['read'], signature });
      expect(registered).toMatchObject({ wallet: kp.publicKey(), scopes: ['read'], rateLimitRpm: 60 });
      expect(registered.apiKey).toMatch(/^svc_ak_/);
      expect(agent.apiKey()).toBe(registered.apiKey);
      const holdings = await unwrap(agent.api.GET('/api/agent/portfolio/holdings', { params: { query: { network_id: NET } } }));
      expect(holdings.data).toEqual([]);
    }
  });

  it('buys one share: prepare → sign locally → submit (its answer lost once and resent), then follows the sale on the event feed', async () => {
    const buyer = Keypair.random();
    await fund(buyer);
    // The first submit reaches the API, but its answer never reaches the agent (a dropped connection).
    let dropNextSubmit = true;
    const agent = createAgentClient({
      baseUrl: system.apiUrl,
      retry: { retries: 0 },
      fetch: async (request) => {
        const response = await globalThis.fetch(request);
        if (dropNextSubmit && request.url.endsWith('/submit-buy')) {
          dropNextSubmit = false;
          throw new TypeError('fetch failed: the connection was reset');
        }
        return response;
      },
    });
    await registerAgent(agent, buyer, { label: 'client buyer' });
    const listings = await unwrap(agent.api.GET('/api/agent/marketplace/listings', { params: { query: { network_id: NET, sort: 'price_asc', limit: 1 } } }));
    const listing = listings.data![0];
    expect(listing?.sale_address).toMatch(/^SALE_/);

    const prepared = await prepareTrade(agent, 'buy', { listing_id: listing.sale_address!, amount: 1, network_id: NET });
    expect(prepared.details).toMatchObject({ listing_id: listing.sale_address, shares: 1, price_per_share: listing.price_per_share });
    expect(prepared.networkPassphrase).toBe(system.networkPassphrase);
    const signed = signPreparedTrade(prepared, buyer);
    const result = await submitTrade(agent, 'buy', signed, NET, { backoffMs: 10 });
    expect(dropNextSubmit).toBe(false);
    expect(result.data).toMatchObject({ listing_id: listing.sale_address, shares_bought: 1, total_cost: prepared.details.total_cost });
    expect(result.data.transaction_hash).toBe(prepared.hash);
    expect((await new rpc.Server(system.rpcUrl, { allowHttp: true }).getTransaction(prepared.hash)).status).toBe('SUCCESS');

    // The same signed envelope again: the first result, not a second trade.
    await expect(submitTrade(agent, 'buy', signed, NET)).resolves.toEqual(result);

    // The sale on the feed, read as a stream from the beginning, filtered to this wallet's sales.
    let sale: FeedEvent | undefined;
    for await (const e of agent.events.stream({ types: ['marketplace_sale_completed'], mine: true, after: '-1:-1' }, { signal: AbortSignal.timeout(60_000) })) {
      expect(e.data.buyer_address ?? e.data.seller_address).toBeDefined();
      if (e.data.transaction_hash === prepared.hash) {
        sale = e;
        break;
      }
    }
    expect(sale).toMatchObject({ event: 'marketplace_sale_completed', data: { buyer_address: buyer.publicKey(), shares: 1 } });
    const page = await agent.events.page({ types: ['marketplace_sale_completed'], mine: true });
    expect(page?.events.map((e) => e.id)).toContain(sale!.id);
  });

  it('throws typed errors carrying the envelope code', async () => {
    const missing = await unwrap(client().api.GET('/api/agent/pools', {})).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 'MISSING_API_KEY', status: 401 });
    const bogus = await unwrap(client('svc_ak_notakey').api.GET('/api/agent/pools', {})).catch((e: unknown) => e);
    expect(bogus).toMatchObject({ code: 'INVALID_API_KEY', status: 401 });

    const kp = Keypair.random();
    const agent = client();
    await registerAgent(agent, kp, { label: 'client errors', scopes: ['read'] });
    const unknown = await prepareTrade(agent, 'buy', { listing_id: 'SALE_00000000000000000000000000000000', network_id: NET }).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ code: 'INSUFFICIENT_SCOPE', status: 403 });
    const badQuery = await unwrap(agent.api.GET('/api/agent/pools', { params: { query: { limit: 1000 } } })).catch((e: unknown) => e);
    expect(badQuery).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
  });

  it('retries a 429 after the Retry-After the API sent, and surfaces the refusal once retries run out', async () => {
    const kp = Keypair.random();
    const impatient = client();
    const { apiKey } = await registerAgent(impatient, kp, { label: 'client rate limit', scopes: ['read'] });
    // 60 rpm + a burst of 10: at most 70 back-to-back requests are admitted, so this loop ends within 71 calls.
    let refusal: AgentApiError | undefined;
    for (let i = 0; i < 80 && !refusal; i++) {
      refusal = await unwrap(impatient.api.GET('/api/agent/pools/featured', {})).then(
        () => undefined,
        (e: unknown) => e as AgentApiError,
      );
    }
    expect(refusal).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
    expect(refusal!.retryAfterSeconds).toBeGreaterThan(0);

    // Right after the refusal the key is still over its limit: the retrying client gets the 429 again and asks to
    // wait what this Retry-After says (recorded here instead of slept: the sliding window can ask for up to 60 s).
    const statuses: number[] = [];
    const waits: number[] = [];
    const patient = createAgentClient({
      baseUrl: system.apiUrl,
      apiKey,
      retry: { retries: 1, maxWaitMs: 65_000, sleep: async (ms) => void waits.push(ms) },
      fetch: async (request) => {
        const response = await fetch(request);
        statuses.push(response.status);
        return response;
      },
    });
    const again = await unwrap(patient.api.GET('/api/agent/pools/featured', {})).catch((e: unknown) => e);
    expect(statuses).toEqual([429, 429]);
    expect(waits).toHaveLength(1);
    expect(Math.abs(waits[0] - refusal!.retryAfterSeconds! * 1000)).toBeLessThanOrEqual(1000);
    expect(again).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
  });
});
