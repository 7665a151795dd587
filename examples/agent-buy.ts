/**
 * An agent, end to end, against `npm start` (or any deployment), on the typed client @dobprotocol/agent-client:
 *   npm run example:agent            (API_URL / FRIENDBOT_URL override the local defaults)
 * A fresh wallet is funded by the devnet faucet, registers (challenge signed locally, SEP-53), buys one share of the
 * cheapest listing (prepare → sign locally → submit) and reads its portfolio. The secret key never leaves this process.
 */
import { Keypair } from '@stellar/stellar-sdk';
import { createAgentClient, registerAgent, trade, unwrap } from '@dobprotocol/agent-client';

const NETWORK_ID = 9;
const FRIENDBOT = process.env.FRIENDBOT_URL ?? 'http://localhost:8000/friendbot';

async function main(): Promise<void> {
  const wallet = Keypair.random();
  const funded = await fetch(`${FRIENDBOT}?addr=${wallet.publicKey()}`);
  if (!funded.ok) throw new Error(`faucet refused: ${await funded.text()}`);

  const agent = createAgentClient({ baseUrl: process.env.API_URL ?? 'http://localhost:3000' });
  const { keyPrefix } = await registerAgent(agent, wallet, { label: 'example agent' });
  console.log(`wallet ${wallet.publicKey()} funded and registered (API key ${keyPrefix}…)`);

  const { data: [listing] = [] } = await unwrap(agent.api.GET('/api/agent/marketplace/listings', { params: { query: { network_id: NETWORK_ID, sort: 'price_asc', limit: 1 } } }));
  if (!listing?.sale_address) throw new Error('no active listing to buy');
  console.log(`buying 1 share of ${listing.pool_name ?? listing.pool_address} at ${listing.price_per_share} ${listing.payment_token}`);
  const { result } = await trade(agent, wallet, 'buy', { listing_id: listing.sale_address, amount: 1, network_id: NETWORK_ID });
  console.log(`bought ${result.data.shares_bought} share(s) for ${result.data.total_cost} ${result.data.payment_token}: ${result.data.transaction_hash}`);

  // The purchase reaches the read models through the indexer and projections within a couple of seconds.
  for (let i = 0; i < 20; i++) {
    const { data: holdings = [] } = await unwrap(agent.api.GET('/api/agent/portfolio/holdings', { params: { query: { network_id: NETWORK_ID } } }));
    if (holdings.length > 0) return console.log('holdings:', JSON.stringify(holdings, null, 2));
    await new Promise((r) => setTimeout(r, 500));
  }
  console.log('holdings not visible yet');
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
