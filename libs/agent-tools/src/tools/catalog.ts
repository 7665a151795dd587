import { TRADE_ROUTES, type TradeKind } from '@dobprotocol/agent-client';
import type { HttpMethod } from '../openapi/operation-input';

export type ToolGroup = 'auth' | 'read' | 'prepare' | 'webhooks';

/** An API operation offered as a tool: its input schema is derived from the operation (operation-input.ts). */
export interface ApiToolSpec {
  readonly name: string;
  readonly title: string;
  /** What an LLM needs to pick the tool; the operation's own summary follows it. */
  readonly description: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly group: ToolGroup;
  readonly kind?: TradeKind;
}

const A = '/api/agent';
const read = (name: string, title: string, path: string, description: string): ApiToolSpec => ({
  name,
  title,
  description,
  method: 'get',
  path: `${A}${path}`,
  group: 'read',
});
const prepare = (kind: TradeKind, title: string, description: string): ApiToolSpec => ({
  name: `prepare_${kind}`,
  title,
  description: `${description} Returns the unsigned transaction (XDR), a summary to check and a prepared_id. Nothing happens on chain until it is signed and submitted.`,
  method: 'post',
  path: TRADE_ROUTES[kind].prepare,
  group: 'prepare',
  kind,
});
const webhook = (name: string, title: string, method: HttpMethod, path: string, description: string): ApiToolSpec => ({
  name,
  title,
  description,
  method,
  path: `${A}${path}`,
  group: 'webhooks',
});

/** The Agent API as tools for an LLM agent, in the product's words. */
export const API_TOOLS: readonly ApiToolSpec[] = [
  {
    name: 'get_auth_challenge',
    title: 'Get a sign-in challenge',
    method: 'get',
    path: `${A}/auth/challenge/{wallet}`,
    group: 'auth',
    description:
      'Step 1 of getting an API key when the agent signs for itself: a message for the wallet to sign (SEP-53 Keypair.signMessage, or raw ed25519), hex.',
  },
  {
    name: 'register_api_key',
    title: 'Register with a signed challenge',
    method: 'post',
    path: `${A}/auth/register`,
    group: 'auth',
    description: 'Step 2: the wallet, the hex signature of the challenge message, a label and scopes. The key is used by this server from now on.',
  },
  read('search_pools', 'Search pools', '/pools', 'Search, filter and sort distribution pools (name or ticker, access type, APR, members).'),
  read('get_featured_pools', 'Featured pools', '/pools/featured', 'Operator-picked and top pools.'),
  read(
    'list_crowdfunding_campaigns',
    'Crowdfunding campaigns',
    '/pools/crowdfunding',
    'Crowdfunding campaigns with target, raised amount, progress and deadline.',
  ),
  read('get_pool', 'Pool detail', '/pools/{address}', 'One pool: creator, shares, distribution settings, next distribution.'),
  read('get_pool_members', 'Pool members', '/pools/{address}/members', 'Members of a pool by shares.'),
  read('get_pool_rounds', 'Pool distribution rounds', '/pools/{address}/distributions', 'Distribution rounds of a pool, with status and claim window.'),
  read('get_pool_events', 'Pool event log', '/pools/{address}/events', 'On-chain event log of a pool.'),
  read('search_listings', 'Search share listings', '/marketplace/listings', 'Shares for sale across pools; sort by price to find the cheapest.'),
  read('get_pool_listings', "A pool's listings", '/marketplace/listings/{poolAddress}', 'Shares for sale in one pool.'),
  read('get_pool_market_stats', 'Pool market statistics', '/marketplace/stats/{poolAddress}', 'Floor and highest price, volumes and sales of one pool.'),
  read('get_portfolio_holdings', 'Portfolio holdings', '/portfolio/holdings', "The agent wallet's holdings across pools."),
  read(
    'get_portfolio_position',
    'Position in a pool',
    '/portfolio/positions/{poolAddress}',
    "The wallet's position in one pool, with its listing and claimable rounds.",
  ),
  read('get_portfolio_listings', 'Own listings', '/portfolio/listings', "The wallet's own listings."),
  read(
    'get_portfolio_distributions',
    'Claimable and upcoming distributions',
    '/portfolio/distributions',
    'Claimable rounds and upcoming distributions of the pools the wallet holds.',
  ),
  read('get_portfolio_history', 'Transaction history', '/portfolio/history', "The wallet's trades, contributions and claims."),
  read(
    'get_events_after',
    'Events after a cursor',
    '/events',
    'What happened (sales, listings, transfers, distributions, campaigns), oldest first, after a cursor: the webhook events without a public URL. Pass next_cursor as `after` next time to get only newer events; mine=true for events naming this wallet.',
  ),
  prepare('buy', 'Prepare a share purchase', 'Buy shares from a listing (listing_id = its sale_address).'),
  prepare('list', 'Prepare a listing', 'List shares of a pool for sale at a price per share.'),
  prepare('cancel', 'Prepare a listing cancellation', "Cancel the wallet's listing; unsold shares return."),
  prepare('contribute', 'Prepare a crowdfunding contribution', 'Contribute payment tokens to a crowdfunding campaign.'),
  prepare('reclaim', 'Prepare a reclaim', 'Reclaim a contribution from a campaign that failed.'),
  webhook('list_webhooks', 'List webhooks', 'get', '/webhooks', "This API key's webhooks."),
  webhook(
    'create_webhook',
    'Register a webhook',
    'post',
    '/webhooks',
    'An HTTPS endpoint that receives signed POSTs for the chosen events (at most 5 per key).',
  ),
  webhook('update_webhook', 'Update a webhook', 'put', '/webhooks/{id}', 'Change url, events, secret or is_active.'),
  webhook('delete_webhook', 'Delete a webhook', 'delete', '/webhooks/{id}', 'Stop deliveries and remove the webhook.'),
  webhook('test_webhook', 'Send a test event', 'post', '/webhooks/{id}/test', 'Send a signed test event now and report the outcome.'),
  webhook('get_webhook_deliveries', 'Webhook delivery log', 'get', '/webhooks/{id}/deliveries', 'Delivery attempts of a webhook, newest first.'),
];
