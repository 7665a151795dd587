/**
 * An agent, end to end, against `npm start` (or any deployment), on the typed client @dobprotocol/agent-client:
 *   npm run example:agent            (API_URL / FRIENDBOT_URL override the local defaults)
 * 1. a fresh wallet is funded by the devnet faucet (friendbot);
 * 2. it signs the auth challenge locally (SEP-53) and registers → an API key, shown once;
 * 3. it buys one share of the cheapest listing (prepare → sign locally → submit) and reads its portfolio;
 * 4. it contributes 25 USDC to the open crowdfunding campaign with the most time left and watches the campaign's
 *    raised amount and contributor count take it in. The secret key never leaves this process.
 */
import { Keypair } from '@stellar/stellar-sdk';
import { createAgentClient, registerAgent, trade, unwrap, type AgentClient } from '@dobprotocol/agent-client';

const NETWORK_ID = 9;
const FRIENDBOT = process.env.FRIENDBOT_URL ?? 'http://localhost:8000/friendbot';

async function main(): Promise<void> {
  const wallet = Keypair.random();
  const funded = await fetch(`${FRIENDBOT}?addr=${wallet.publicKey()}`);
  if (!funded.ok) throw new Error(`faucet refused: ${await funded.text()}`);

  const agent = createAgentClient({ baseUrl: process.env.API_URL ?? 'http://localhost:3000' });
  const { keyPrefix } = await registerAgent(agent, wallet, { label: 'example agent' });
  console.log(`wallet ${wallet.publicKey()} funded and registered (API key ${keyPrefix}…)`);

  const { data: [listing] = [] } = await unwrap(
    agent.api.GET('/api/agent/marketplace/listings', { params: { query: { network_id: NETWORK_ID, sort: 'price_asc', limit: 1 } } }),
  );
  if (!listing?.sale_address) throw new Error('no active listing to buy');
  console.log(`buying 1 share of ${listing.pool_name ?? listing.pool_address} at ${listing.price_per_share} ${listing.payment_token}`);
  const { result } = await trade(agent, wallet, 'buy', { listing_id: listing.sale_address, amount: 1, network_id: NETWORK_ID });
  console.log(`bought ${result.data.shares_bought} share(s) for ${result.data.total_cost} ${result.data.payment_token}: ${result.data.transaction_hash}`);

  // The purchase reaches the read models through the indexer and projections within a couple of seconds.
  const holdings = await eventually(async () => {
    const { data = [] } = await unwrap(agent.api.GET('/api/agent/portfolio/holdings', { params: { query: { network_id: NETWORK_ID } } }));
    return data.length > 0 ? data : undefined;
  });
  console.log('holdings:', JSON.stringify(holdings ?? 'not visible yet', null, 2));

  await contribute(agent, wallet);
}

/** A contribution to an open campaign, then its progress numbers through the read API. */
async function contribute(agent: AgentClient, wallet: Keypair): Promise<void> {
  const campaigns = async (status: 'active' | 'all') =>
    (await unwrap(agent.api.GET('/api/agent/pools/crowdfunding', { params: { query: { network_id: NETWORK_ID, sort: 'deadline_desc', status } } }))).data ?? [];
  const [before] = await campaigns('active');
  if (!before) throw new Error('no open crowdfunding campaign');
  console.log(
    `campaign ${before.name ?? before.address}: ${before.raised_amount} of ${before.target_amount} ${before.payment_token} raised, ${before.contributor_count} contributors`,
  );

  const { result } = await trade(agent, wallet, 'contribute', { pool_address: before.address, amount: '25', network_id: NETWORK_ID });
  const done = result.data as Record<string, unknown>;
  console.log(`contributed ${String(done.amount_contributed)} ${String(done.payment_token)}: ${String(done.transaction_hash)}`);

  const after = await eventually(async () => {
    const c = (await campaigns('all')).find((x) => x.address === before.address);
    return c && c.contributor_count > before.contributor_count ? c : undefined;
  });
  if (!after) throw new Error('the contribution did not show in the campaign within the wait');
  console.log(`campaign now: ${after.raised_amount} of ${after.target_amount} raised, ${after.contributor_count} contributors`);
}

/** Polls until probe returns a value (at most ~15 s): the read side follows the chain within seconds. */
async function eventually<T>(probe: () => Promise<T | undefined>): Promise<T | undefined> {
  for (let i = 0; i < 30; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 500));
  }
  return undefined;
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
