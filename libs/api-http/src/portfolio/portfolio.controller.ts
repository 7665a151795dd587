import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { type PortfolioQueries } from '@dob/read-models';
import { HistoryQuery, HoldingsQuery, OwnListingsQuery, PortfolioDistributionsQuery, PositionQuery } from './portfolio.handlers';
import { CurrentAgent, RequireScope, type AgentPrincipal } from '../access';
import { ok, page } from '../http/envelope';
import { envelope } from '../openapi/schema-parts';
import { distributionsSchema, historySchema, holdingSchema, listingSchema, positionSchema } from '../openapi/read-model-schemas';
import { NetworkQuery, paging, PoolAddressParam } from '../http/query-params.dto';
import { HistoryQueryDto, PortfolioListingsQueryDto } from './portfolio.dto';

const BAD = { description: 'VALIDATION_ERROR naming the parameter' };

type Answer<K extends keyof PortfolioQueries> = PortfolioQueries[K] extends (...args: never[]) => Promise<infer R> ? R : never;

/** The API key's wallet: holdings (Dob's documented fields), one position, own listings, distributions, history. */
@ApiTags('Portfolio')
@ApiSecurity('api-key')
@RequireScope('read')
@Controller('portfolio')
export class PortfolioController {
  constructor(private readonly queries: QueryBus) {}

  @Get('holdings')
  @ApiOperation({ summary: "The key wallet's holdings across pools" })
  @ApiOkResponse({ schema: envelope(holdingSchema, 'list') })
  @ApiBadRequestResponse(BAD)
  async holdings(@CurrentAgent() agent: AgentPrincipal, @Query() query: NetworkQuery) {
    return ok(await this.queries.execute<HoldingsQuery, Answer<'holdings'>>(new HoldingsQuery(agent.wallet, query.network_id)));
  }

  @Get('positions/:poolAddress')
  @ApiOperation({ summary: 'Position in one pool, with its active listing and claimable rounds' })
  @ApiOkResponse({ schema: envelope(positionSchema, 'one') })
  @ApiBadRequestResponse(BAD)
  @ApiNotFoundResponse({ description: 'NOT_FOUND: the wallet holds no shares of this pool' })
  async position(@CurrentAgent() agent: AgentPrincipal, @Param() p: PoolAddressParam, @Query() query: NetworkQuery) {
    return ok(await this.queries.execute<PositionQuery, Answer<'position'>>(new PositionQuery(agent.wallet, p.poolAddress, query.network_id)));
  }

  @Get('listings')
  @ApiOperation({ summary: "The wallet's own listings" })
  @ApiOkResponse({ schema: envelope(listingSchema, 'page') })
  @ApiBadRequestResponse(BAD)
  async listings(@CurrentAgent() agent: AgentPrincipal, @Query() query: PortfolioListingsQueryDto) {
    const criteria = { ...paging(query), networkId: query.network_id, status: query.status ?? 'active' } as const;
    const r = await this.queries.execute<OwnListingsQuery, Answer<'listings'>>(new OwnListingsQuery(agent.wallet, criteria));
    return page(r.items, { page: r.page, limit: r.limit, total: r.total });
  }

  @Get('distributions')
  @ApiOperation({ summary: 'Claimable rounds and upcoming distributions of the pools the wallet holds' })
  @ApiOkResponse({ schema: envelope(distributionsSchema, 'one') })
  @ApiBadRequestResponse(BAD)
  async distributions(@CurrentAgent() agent: AgentPrincipal, @Query() query: NetworkQuery) {
    return ok(
      await this.queries.execute<PortfolioDistributionsQuery, Answer<'distributions'>>(new PortfolioDistributionsQuery(agent.wallet, query.network_id)),
    );
  }

  @Get('history')
  @ApiOperation({ summary: 'Transaction history of the wallet (newest first)' })
  @ApiOkResponse({ schema: envelope(historySchema, 'page') })
  @ApiBadRequestResponse(BAD)
  async history(@CurrentAgent() agent: AgentPrincipal, @Query() query: HistoryQueryDto) {
    const r = await this.queries.execute<HistoryQuery, Answer<'history'>>(
      new HistoryQuery(agent.wallet, { ...paging(query), networkId: query.network_id, type: query.type }),
    );
    return page(r.items, { page: r.page, limit: r.limit, total: r.total });
  }
}
