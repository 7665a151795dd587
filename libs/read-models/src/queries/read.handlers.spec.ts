import { AppError } from '@dob/domain';
import { ListingsHandler, ListingsQuery, MarketplaceStatsHandler, MarketplaceStatsQuery, PoolListingsHandler, PoolListingsQuery } from './marketplace.handlers';
import {
  CrowdfundingCampaignsHandler,
  CrowdfundingCampaignsQuery,
  FeaturedPoolsHandler,
  FeaturedPoolsQuery,
  ListPoolsHandler,
  ListPoolsQuery,
  PoolDetailHandler,
  PoolDetailQuery,
  PoolDistributionsHandler,
  PoolDistributionsQuery,
  PoolEventsHandler,
  PoolEventsQuery,
  PoolMembersHandler,
  PoolMembersQuery,
} from './pool.handlers';
import {
  HistoryHandler,
  HistoryQuery,
  HoldingsHandler,
  HoldingsQuery,
  OwnListingsHandler,
  OwnListingsQuery,
  PortfolioDistributionsHandler,
  PortfolioDistributionsQuery,
  PositionHandler,
  PositionQuery,
} from './portfolio.handlers';
import type { ReadQueries } from './read-queries';

/** ReadQueries whose every service method records its call and answers with "<service>.<method>". */
function fakeQueries(failure?: Error) {
  const calls: unknown[][] = [];
  const service = (name: string) =>
    new Proxy(
      {},
      {
        get:
          (_t, method) =>
          (...args: unknown[]) => {
            calls.push([`${name}.${String(method)}`, ...args]);
            return failure ? Promise.reject(failure) : Promise.resolve(`${name}.${String(method)}`);
          },
      },
    );
  const queries = Object.fromEntries(
    ['pools', 'poolActivity', 'featured', 'crowdfunding', 'marketplace', 'portfolio'].map((n) => [n, service(n)]),
  ) as unknown as ReadQueries;
  return { queries, calls };
}

const paging = { page: 2, limit: 20 };
const scoped = { address: 'CPOOL', networkId: 1, ...paging };
type Case = [string, (q: ReadQueries) => Promise<unknown>, unknown[]];

const cases: Case[] = [
  [
    'pools.list',
    (q) => new ListPoolsHandler(q.pools).execute(new ListPoolsQuery({ ...paging, sort: 'apr_desc', search: 'solar' })),
    [{ ...paging, sort: 'apr_desc', search: 'solar' }],
  ],
  ['pools.detail', (q) => new PoolDetailHandler(q.pools).execute(new PoolDetailQuery('CPOOL', 1)), ['CPOOL', 1]],
  ['featured.list', (q) => new FeaturedPoolsHandler(q.featured).execute(new FeaturedPoolsQuery(2)), [{ networkId: 2 }]],
  [
    'crowdfunding.list',
    (q) => new CrowdfundingCampaignsHandler(q.crowdfunding).execute(new CrowdfundingCampaignsQuery({ sort: 'progress_desc', status: 'all' })),
    [{ sort: 'progress_desc', status: 'all' }],
  ],
  ['poolActivity.members', (q) => new PoolMembersHandler(q.poolActivity).execute(new PoolMembersQuery(scoped)), [scoped]],
  [
    'poolActivity.distributions',
    (q) => new PoolDistributionsHandler(q.poolActivity).execute(new PoolDistributionsQuery({ ...scoped, status: 'pending' })),
    [{ ...scoped, status: 'pending' }],
  ],
  ['poolActivity.events', (q) => new PoolEventsHandler(q.poolActivity).execute(new PoolEventsQuery(scoped)), [scoped]],
  [
    'marketplace.listings',
    (q) => new ListingsHandler(q.marketplace).execute(new ListingsQuery({ ...paging, sort: 'price_asc', status: 'active' })),
    [{ ...paging, sort: 'price_asc', status: 'active' }],
  ],
  [
    'marketplace.poolListings',
    (q) => new PoolListingsHandler(q.marketplace).execute(new PoolListingsQuery({ address: 'CPOOL', sort: 'price_desc', status: 'all' })),
    [{ address: 'CPOOL', sort: 'price_desc', status: 'all' }],
  ],
  ['marketplace.stats', (q) => new MarketplaceStatsHandler(q.marketplace).execute(new MarketplaceStatsQuery({ address: 'CPOOL' })), [{ address: 'CPOOL' }]],
  ['portfolio.holdings', (q) => new HoldingsHandler(q.portfolio).execute(new HoldingsQuery('GW', 1)), ['GW', 1]],
  ['portfolio.position', (q) => new PositionHandler(q.portfolio).execute(new PositionQuery('GW', 'CPOOL')), ['GW', 'CPOOL', undefined]],
  [
    'portfolio.listings',
    (q) => new OwnListingsHandler(q.portfolio).execute(new OwnListingsQuery('GW', { ...paging, status: 'all' })),
    ['GW', { ...paging, status: 'all' }],
  ],
  ['portfolio.distributions', (q) => new PortfolioDistributionsHandler(q.portfolio).execute(new PortfolioDistributionsQuery('GW', 1)), ['GW', 1]],
  ['portfolio.history', (q) => new HistoryHandler(q.portfolio).execute(new HistoryQuery('GW', { ...paging, type: 'buy' })), ['GW', { ...paging, type: 'buy' }]],
];

describe('read query handlers', () => {
  it.each(cases)('%s: the query reaches its service with its criteria and the answer comes back', async (method, run, args) => {
    const { queries, calls } = fakeQueries();
    await expect(run(queries)).resolves.toBe(method);
    expect(calls).toEqual([[method, ...args]]);
  });

  it('NOT_FOUND from a query service passes through unchanged', async () => {
    const refusal = AppError.notFound('Pool not found');
    const { queries } = fakeQueries(refusal);
    await expect(new PoolDetailHandler(queries.pools).execute(new PoolDetailQuery('CNONE'))).rejects.toBe(refusal);
  });
});
