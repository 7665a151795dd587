import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { AppError } from '@dob/domain';
import { HealthRegistry } from '@dob/runtime';
import { ApiModule, type ApiDependencies } from './api.module';
import * as auth from './auth/auth.handlers';
import * as events from './events/events.handlers';
import * as marketplace from './marketplace/marketplace.handlers';
import * as pools from './pools/pools.handlers';
import * as portfolio from './portfolio/portfolio.handlers';
import * as trading from './trading/trading.handlers';
import * as webhooks from './webhooks/webhooks.handlers';

/**
 * The API's command and query handlers as @nestjs/cqrs registers them: ApiModule's providers, found by CqrsModule's
 * explorer. Every dependency the host gives is a recorder, so each message sent on a bus shows which use case it
 * reached and with what; a handler left out of its area's list, or calling the wrong use case, fails here.
 */
type Call = [path: string, args: unknown[]];
const LIFECYCLE = new Set([
  'then',
  'constructor',
  'onModuleInit',
  'onApplicationBootstrap',
  'onModuleDestroy',
  'beforeApplicationShutdown',
  'onApplicationShutdown',
]);

/** Any property path is a function that logs its call and answers `{ answeredBy: path }` (or throws `refuse` for `refused`). */
function recorder(path: string, log: Call[], refused?: { path: string; error: Error }): never {
  const call = (...args: unknown[]) => {
    log.push([path, args]);
    if (refused?.path === path) return Promise.reject(refused.error);
    return Promise.resolve({ answeredBy: path });
  };
  return new Proxy(call, {
    get: (_t, p) => (typeof p === 'symbol' || LIFECYCLE.has(p) ? undefined : recorder(`${path}.${p}`, log, refused)),
  }) as never;
}

function dependencies(log: Call[], refused?: { path: string; error: Error }): ApiDependencies {
  const r = (name: string) => recorder(name, log, refused);
  const jwt = { secret: 'spec-secret', issuer: 'spec', audience: 'spec/keys', ttlSeconds: 60 };
  return {
    health: new HealthRegistry(),
    auth: { challenges: r('challenges'), keys: r('keys'), authenticator: r('authenticator'), rateLimiter: r('rateLimiter'), jwt, ipRateLimitRpm: 60 },
    read: { queries: r('read') },
    webhooks: r('webhooks'),
    trading: r('trading'),
    events: { feed: r('feed') },
  };
}

const open = (deps: ApiDependencies) => NestFactory.createApplicationContext(ApiModule.forRoot(deps), { logger: false });
const send = (app: INestApplicationContext, message: object) =>
  message.constructor.name.endsWith('Query') ? app.get(QueryBus).execute(message) : app.get(CommandBus).execute(message);

const caller = { keyId: 'k1', wallet: 'GW' };
const c = { pool_address: 'CP', network_id: 9 };
/** Each message the controllers send, and the one use case call it must reach. */
const ONE_CALL: [message: object, path: string, args: unknown[]][] = [
  [new pools.ListPoolsQuery({ page: 1, limit: 20, sort: 'created_desc' }), 'read.pools.list', [{ page: 1, limit: 20, sort: 'created_desc' }]],
  [new pools.PoolDetailQuery('CP', 9), 'read.pools.detail', ['CP', 9]],
  [new pools.FeaturedPoolsQuery(9), 'read.featured.list', [{ networkId: 9 }]],
  [new pools.CrowdfundingCampaignsQuery({ status: 'all' } as never), 'read.crowdfunding.list', [{ status: 'all' }]],
  [new pools.PoolMembersQuery({ address: 'CP' } as never), 'read.poolActivity.members', [{ address: 'CP' }]],
  [new pools.PoolDistributionsQuery({ address: 'CP' } as never), 'read.poolActivity.distributions', [{ address: 'CP' }]],
  [new pools.PoolEventsQuery({ address: 'CP' } as never), 'read.poolActivity.events', [{ address: 'CP' }]],
  [new marketplace.ListingsQuery({ page: 2 } as never), 'read.marketplace.listings', [{ page: 2 }]],
  [new marketplace.PoolListingsQuery({ poolAddress: 'CP' } as never), 'read.marketplace.poolListings', [{ poolAddress: 'CP' }]],
  [new marketplace.MarketplaceStatsQuery({ poolAddress: 'CP' } as never), 'read.marketplace.stats', [{ poolAddress: 'CP' }]],
  [new portfolio.HoldingsQuery('GW', 9), 'read.portfolio.holdings', ['GW', 9]],
  [new portfolio.PositionQuery('GW', 'CP', 9), 'read.portfolio.position', ['GW', 'CP', 9]],
  [new portfolio.OwnListingsQuery('GW', { page: 1 } as never), 'read.portfolio.listings', ['GW', { page: 1 }]],
  [new portfolio.PortfolioDistributionsQuery('GW', 10), 'read.portfolio.distributions', ['GW', 10]],
  [new portfolio.HistoryQuery('GW', { type: 'claim' } as never), 'read.portfolio.history', ['GW', { type: 'claim' }]],
  [new auth.IssueChallengeCommand('GW', '203.0.113.7'), 'challenges.issue', ['GW', '203.0.113.7']],
  [
    new auth.CreateApiKeyCommand('GW', { label: 'bot', scopes: ['read'] }),
    'keys.createKey',
    ['GW', { label: 'bot', scopes: ['read'], origin: 'key_management' }],
  ],
  [new auth.RevokeApiKeyCommand('GW', 'k1'), 'keys.revokeKey', ['GW', 'k1']],
  [new auth.RotateApiKeyCommand('GW', 'k1'), 'keys.rotateKey', ['GW', 'k1']],
  [new auth.ListApiKeysQuery('GW'), 'keys.listKeys', ['GW']],
  [new trading.PrepareBuyCommand(caller as never, c as never), 'trading.prepare.prepareBuy', [caller, c]],
  [new trading.PrepareListCommand(caller as never, c as never), 'trading.prepare.prepareList', [caller, c]],
  [new trading.PrepareCancelCommand(caller as never, c as never), 'trading.prepare.prepareCancel', [caller, c]],
  [new trading.PrepareContributeCommand(caller as never, c as never), 'trading.prepare.prepareContribute', [caller, c]],
  [new trading.PrepareReclaimCommand(caller as never, c as never), 'trading.prepare.prepareReclaim', [caller, c]],
  [
    new trading.SubmitSignedTradeCommand('buy', caller as never, { signed_xdr: 'AAA', network_id: 9 }),
    'trading.submitter.submit',
    ['buy', caller, { signed_xdr: 'AAA', network_id: 9 }],
  ],
  [new webhooks.RegisterWebhookCommand({ keyId: 'k1' } as never, { url: 'https://x' }), 'webhooks.register', [{ keyId: 'k1' }, { url: 'https://x' }]],
  [new webhooks.UpdateWebhookCommand('k1', 'w1', { active: false }), 'webhooks.update', ['k1', 'w1', { active: false }]],
  [new webhooks.RemoveWebhookCommand({ keyId: 'k1' } as never, 'w1'), 'webhooks.remove', [{ keyId: 'k1' }, 'w1']],
  [new webhooks.SendTestWebhookCommand('k1', 'w1'), 'webhooks.sendTest', ['k1', 'w1']],
  [new webhooks.RedeliverWebhookCommand('k1', 'w1', 'd1'), 'webhooks.redeliver', ['k1', 'w1', 'd1']],
  [new webhooks.ListWebhooksQuery({ keyId: 'k1' } as never), 'webhooks.list', [{ keyId: 'k1' }]],
  [new webhooks.WebhookDeliveriesQuery('k1', 'w1', 2, 50), 'webhooks.deliveries', ['k1', 'w1', 2, 50]],
  [new events.ReadEventFeedQuery('GW', { after: '1:1', mine: true }), 'feed.pageFor', ['GW', { after: '1:1', mine: true }]],
];

describe('the API handlers, registered by @nestjs/cqrs from ApiModule providers', () => {
  let log: Call[];
  let app: INestApplicationContext;
  beforeAll(async () => {
    log = [];
    app = await open(dependencies(log));
  });
  afterAll(() => app.close());
  beforeEach(() => log.splice(0));

  it.each(ONE_CALL.map(([m, path, args]) => [m.constructor.name, m, path, args] as const))(
    '%s reaches its use case once',
    async (_name, message, path, args) => {
      await expect(send(app, message)).resolves.toEqual({ answeredBy: path });
      expect(log).toEqual([[path, args]]);
    },
  );

  it('the table above covers every handler the areas register (a new message needs its row)', () => {
    const registered = [
      auth.authHandlers,
      events.eventsHandlers,
      marketplace.marketplaceHandlers,
      pools.poolsHandlers,
      portfolio.portfolioHandlers,
      trading.tradingHandlers,
      webhooks.webhooksHandlers,
    ]
      .flat()
      .filter((h) => typeof h === 'function')
      .map((h) => h.name);
    const tested = [...ONE_CALL.map(([m]) => m.constructor.name), 'RegisterAgentCommand', 'IssueWalletTokenCommand'].map((n) => `${n}Handler`);
    expect(registered.sort()).toEqual(tested.sort());
    expect(registered).toHaveLength(36);
  });

  it('register consumes the signed challenge, then creates a key of origin "register"', async () => {
    await expect(send(app, new auth.RegisterAgentCommand('GW', 'sig', { label: 'bot', scopes: ['read'] }))).resolves.toEqual({ answeredBy: 'keys.createKey' });
    expect(log).toEqual([
      ['challenges.consume', ['GW', 'sig']],
      ['keys.createKey', ['GW', { label: 'bot', scopes: ['read'], origin: 'register' }]],
    ]);
  });

  it('a wallet token is signed (the API JWT issuer) after the challenge was consumed', async () => {
    const issued = (await send(app, new auth.IssueWalletTokenCommand('GW', 'sig'))) as { token: string; expiresAt: Date };
    expect(log).toEqual([['challenges.consume', ['GW', 'sig']]]);
    expect(JSON.parse(Buffer.from(issued.token.split('.')[1]!, 'base64url').toString())).toMatchObject({ sub: 'GW', iss: 'spec', aud: 'spec/keys' });
  });
});

describe('handler registration around the buses', () => {
  it("a use case's refusal reaches the caller as the same instance (so the error filter gives the same envelope)", async () => {
    const refusal = new AppError('NOT_FOUND', 'No such webhook');
    const app = await open(dependencies([], { path: 'webhooks.sendTest', error: refusal }));
    try {
      await expect(send(app, new webhooks.SendTestWebhookCommand('k1', 'w9'))).rejects.toBe(refusal);
    } finally {
      await app.close();
    }
  });

  it('two applications in one process each dispatch to their own dependencies', async () => {
    const [logA, logB]: Call[][] = [[], []];
    const a = await open(dependencies(logA));
    const b = await open(dependencies(logB));
    try {
      await send(a, new portfolio.HoldingsQuery('GA'));
      await send(b, new portfolio.HoldingsQuery('GB'));
      expect(logA).toEqual([['read.portfolio.holdings', ['GA', undefined]]]);
      expect(logB).toEqual([['read.portfolio.holdings', ['GB', undefined]]]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('an area the host does not give has no handlers: its messages are refused by the bus, not dropped', async () => {
    const app = await open({ health: new HealthRegistry() });
    try {
      // (the command bus throws, the query bus rejects: an async call takes both as a rejection)
      await expect((async () => send(app, new trading.PrepareBuyCommand(caller as never, c as never)))()).rejects.toThrow(/PrepareBuyCommand/);
      await expect((async () => send(app, new pools.ListPoolsQuery({ page: 1, limit: 20, sort: 'created_desc' })))()).rejects.toThrow(/ListPoolsQuery/);
    } finally {
      await app.close();
    }
  });
});
