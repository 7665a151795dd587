import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import {
  type CrowdfundingPool,
  type DistributionRound,
  type FeaturedPool,
  type Page,
  type PoolDetail,
  type PoolEvent,
  type PoolListItem,
  type PoolMember,
} from '@dob/read-models';
import {
  CrowdfundingCampaignsQuery,
  FeaturedPoolsQuery,
  ListPoolsQuery,
  PoolDetailQuery,
  PoolDistributionsQuery,
  PoolEventsQuery,
  PoolMembersQuery,
} from './pools.handlers';
import { RequireScope } from '../access';
import { ok, page } from '../http/envelope';
import { envelope } from '../openapi/schema-parts';
import {
  crowdfundingSchema,
  featuredSchema,
  memberSchema,
  poolDetailSchema,
  poolEventSchema,
  poolListItemSchema,
  roundSchema,
} from '../openapi/read-model-schemas';
import { CrowdfundingQueryDto, DistributionsQueryDto, PoolAddressParams, PoolEventsQueryDto, PoolListQueryDto } from './pools.dto';
import { NetworkQuery, PagedNetworkQuery, paging } from '../http/query-params.dto';

const BAD = {
  description:
    'VALIDATION_ERROR naming the parameter (unknown enum value, limit > 100, page < 1, malformed address, non-integer network_id, or network_id missing for an address on several networks)',
};
const MISSING = { description: 'NOT_FOUND: no such pool' };

@ApiTags('Pool discovery')
@ApiSecurity('api-key')
@RequireScope('read')
@Controller('pools')
export class PoolsController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({ summary: 'List, search, filter and sort pools' })
  @ApiOkResponse({ schema: envelope(poolListItemSchema, 'page') })
  @ApiBadRequestResponse(BAD)
  async list(@Query() query: PoolListQueryDto) {
    const criteria = { ...paging(query), search: query.search, networkId: query.network_id, accessType: query.access_type, sort: query.sort ?? 'created_desc' };
    const r = await this.queries.execute<ListPoolsQuery, Page<PoolListItem>>(new ListPoolsQuery(criteria));
    return page(r.items, { page: r.page, limit: r.limit, total: r.total });
  }

  @Get('featured')
  @ApiOperation({ summary: 'Featured pools: operator picks, then highest APR, most members, top 24 h volume' })
  @ApiOkResponse({ schema: envelope(featuredSchema, 'list') })
  @ApiBadRequestResponse(BAD)
  async featured(@Query() query: NetworkQuery) {
    return ok(await this.queries.execute<FeaturedPoolsQuery, FeaturedPool[]>(new FeaturedPoolsQuery(query.network_id)));
  }

  @Get('crowdfunding')
  @ApiOperation({ summary: 'Crowdfunding campaigns (active by default)' })
  @ApiOkResponse({ schema: envelope(crowdfundingSchema, 'list') })
  @ApiBadRequestResponse(BAD)
  async crowdfunding(@Query() query: CrowdfundingQueryDto) {
    const criteria = { networkId: query.network_id, sort: query.sort ?? 'deadline_asc', status: query.status ?? 'active' } as const;
    return ok(await this.queries.execute<CrowdfundingCampaignsQuery, CrowdfundingPool[]>(new CrowdfundingCampaignsQuery(criteria)));
  }

  @Get(':address')
  @ApiOperation({ summary: 'Pool detail' })
  @ApiOkResponse({ schema: envelope(poolDetailSchema, 'one') })
  @ApiBadRequestResponse(BAD)
  @ApiNotFoundResponse(MISSING)
  async detail(@Param() p: PoolAddressParams, @Query() query: NetworkQuery) {
    return ok(await this.queries.execute<PoolDetailQuery, PoolDetail>(new PoolDetailQuery(p.address, query.network_id)));
  }

  @Get(':address/members')
  @ApiOperation({ summary: 'Pool members by shares (largest first)' })
  @ApiOkResponse({ schema: envelope(memberSchema, 'page') })
  @ApiBadRequestResponse(BAD)
  @ApiNotFoundResponse(MISSING)
  async members(@Param() p: PoolAddressParams, @Query() query: PagedNetworkQuery) {
    const criteria = { address: p.address, networkId: query.network_id, ...paging(query) };
    const r = await this.queries.execute<PoolMembersQuery, Page<PoolMember>>(new PoolMembersQuery(criteria));
    return page(r.items, { page: r.page, limit: r.limit, total: r.total });
  }

  @Get(':address/distributions')
  @ApiOperation({ summary: 'Distribution rounds (newest first); status computed at request time' })
  @ApiOkResponse({ schema: envelope(roundSchema, 'page') })
  @ApiBadRequestResponse(BAD)
  @ApiNotFoundResponse(MISSING)
  async distributions(@Param() p: PoolAddressParams, @Query() query: DistributionsQueryDto) {
    const criteria = { address: p.address, networkId: query.network_id, status: query.status, ...paging(query) };
    const r = await this.queries.execute<PoolDistributionsQuery, Page<DistributionRound>>(new PoolDistributionsQuery(criteria));
    return page(r.items, { page: r.page, limit: r.limit, total: r.total });
  }

  @Get(':address/events')
  @ApiOperation({ summary: 'Pool event log (newest first)' })
  @ApiOkResponse({ schema: envelope(poolEventSchema, 'page') })
  @ApiBadRequestResponse(BAD)
  @ApiNotFoundResponse(MISSING)
  async events(@Param() p: PoolAddressParams, @Query() query: PoolEventsQueryDto) {
    const criteria = { address: p.address, networkId: query.network_id, eventType: query.event_type, ...paging(query) };
    const r = await this.queries.execute<PoolEventsQuery, Page<PoolEvent>>(new PoolEventsQuery(criteria));
    return page(r.items, { page: r.page, limit: r.limit, total: r.total });
  }
}
