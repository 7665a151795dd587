/**
 * An agent, end to end, against `npm start` (or any deployment): only @stellar/stellar-sdk and fetch.
 *   npm run example:agent            (API_URL / FRIENDBOT_URL override the local defaults)
 * 1. a fresh wallet is funded by the devnet faucet (friendbot);
 * 2. it signs the auth challenge locally (SEP-53, Keypair.signMessage) and registers → an API key, shown once;
 * 3. it reads the cheapest active listing, prepares a buy of one share, signs the XDR locally, submits it;
 * 4. it reads its portfolio;
 * 5. it contributes 25 USDC to the open crowdfunding campaign with the most time left (prepare → sign → submit) and
 *    watches the campaign's raised amount and contributor count take it in. The secret key never leaves this process.
 */
import { Keypair, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';

const API = process.env.API_URL ?? 'http://localhost:3000/api/agent';
const FRIENDBOT = process.env.FRIENDBOT_URL ?? 'http://localhost:8000/friendbot';
const NETWORK_ID = 9;

async function call(method: string, path: string, body?: unknown, key?: string): Promise<any> {
  const res = await fetch(`${API}${path}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(key ? { 'x-api-key': key } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (!json.success) throw new Error(`${method} ${path} → ${res.status} ${json.error.code}: ${json.error.message}`);
  return json;
}

async function main(): Promise<void> {
  const wallet = Keypair.random();
  const funded = await fetch(`${FRIENDBOT}?addr=${wallet.publicKey()}`);
  if (!funded.ok) throw new Error(`faucet refused: ${await funded.text()}`);
  console.log(`wallet ${wallet.publicKey()} funded`);

  const challenge = (await call('GET', `/auth/challenge/${wallet.publicKey()}`)).data;
  const signature = Buffer.from(wallet.signMessage(challenge.message)).toString('hex');
  const registered = await call('POST', '/auth/register', { wallet: wallet.publicKey(), signature, label: 'example agent', scopes: ['read', 'trade'] });
  const key: string = registered.data.api_key.key;
  console.log(`API key ${registered.data.api_key.key_prefix}… (${registered.message})`);

  const listings = (await call('GET', `/marketplace/listings?network_id=${NETWORK_ID}&sort=price_asc&limit=1`, undefined, key)).data;
  if (listings.length === 0) throw new Error('no active listing to buy');
  const listing = listings[0];
  console.log(`buying 1 share of ${listing.pool_name ?? listing.pool_address} at ${listing.price_per_share} ${listing.payment_token}`);

  const prepared = (await call('POST', '/marketplace/prepare-buy', { listing_id: listing.sale_address, amount: 1, network_id: NETWORK_ID }, key)).data;
  const tx = TransactionBuilder.fromXDR(prepared.xdr, prepared.network_passphrase) as Transaction;
  tx.sign(wallet); // locally: the service never sees the secret key
  const result = (await call('POST', '/marketplace/submit-buy', { signed_xdr: tx.toXDR(), network_id: NETWORK_ID }, key)).data;
  console.log(`bought ${result.shares_bought} share(s) for ${result.total_cost} ${result.payment_token}: ${result.transaction_hash}`);

  // The purchase reaches the read models through the indexer and projections within a couple of seconds.
  const holdings = await eventually(async () => {
    const list = (await call('GET', `/portfolio/holdings?network_id=${NETWORK_ID}`, undefined, key)).data;
    return list.length > 0 ? list : undefined;
  });
  console.log('holdings:', JSON.stringify(holdings ?? 'not visible yet', null, 2));

  await contribute(wallet, key);
}

/** Step 5: a contribution to an open campaign, then its progress numbers through the read API. */
async function contribute(wallet: Keypair, key: string): Promise<void> {
  const campaigns = (await call('GET', `/pools/crowdfunding?network_id=${NETWORK_ID}&sort=deadline_desc`, undefined, key)).data;
  if (campaigns.length === 0) throw new Error('no open crowdfunding campaign');
  const before = campaigns[0];
  console.log(`campaign ${before.name ?? before.address}: ${before.raised_amount} of ${before.target_amount} ${before.payment_token} raised (${before.progress_percent} %), ${before.contributor_count} contributors, deadline ${before.deadline}`);

  const prepared = (await call('POST', '/crowdfunding/prepare-contribute', { pool_address: before.address, amount: '25', network_id: NETWORK_ID }, key)).data;
  const tx = TransactionBuilder.fromXDR(prepared.xdr, prepared.network_passphrase) as Transaction;
  tx.sign(wallet);
  const result = (await call('POST', '/crowdfunding/submit-contribute', { signed_xdr: tx.toXDR(), network_id: NETWORK_ID }, key)).data;
  console.log(`contributed ${result.amount_contributed} ${result.payment_token} for ${result.shares_allocated} share(s): ${result.transaction_hash}`);

  const after = await eventually(async () => {
    const list = (await call('GET', `/pools/crowdfunding?network_id=${NETWORK_ID}&status=all`, undefined, key)).data;
    const c = list.find((x: { address: string }) => x.address === before.address);
    return c && c.contributor_count > before.contributor_count ? c : undefined;
  });
  if (!after) throw new Error('the contribution did not show in the campaign within the wait');
  console.log(`campaign now: ${after.raised_amount} of ${after.target_amount} raised (${after.progress_percent} %), ${after.contributor_count} contributors`);
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
