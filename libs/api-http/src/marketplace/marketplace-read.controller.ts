import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { type Listing, type MarketplaceStats, type Page, type PoolListing } from '@dob/read-models';
import { ListingsQuery, MarketplaceStatsQuery, PoolListingsQuery } from './marketplace.handlers';
import { RequireScope } from '../access';
import { ok, page } from '../http/envelope';
import { envelope } from '../openapi/schema-parts';
import { listingSchema, poolListingSchema, statsSchema } from '../openapi/read-model-schemas';
import { NetworkQuery, paging, PoolAddressParam } from '../http/query-params.dto';
import { ListingsQueryDto, PoolListingsQueryDto } from './marketplace-read.dto';

const BAD = { description: 'VALIDATION_ERROR naming the parameter' };
const MISSING = { description: 'NOT_FOUND: no such pool' };

@ApiTags('Marketplace')
@ApiSecurity('api-key')
@RequireScope('read')
@Controller('marketplace')
export class MarketplaceReadController {
  constructor(private readonly queries: QueryBus) {}

  @Get('listings')
  @ApiOperation({ summary: 'Share listings across pools (active unless status says otherwise)' })
  @ApiOkResponse({ schema: envelope(listingSchema, 'page') })
  @ApiBadRequestResponse(BAD)
  async listings(@Query() query: ListingsQueryDto) {
    const r = await this.queries.execute<ListingsQuery, Page<Listing>>(
      new ListingsQuery({
        ...paging(query),
        networkId: query.network_id,
        paymentToken: query.payment_token,
        sort: query.sort ?? 'created_desc',
        status: query.status ?? 'active',
      }),
    );
    return page(r.items, { page: r.page, limit: r.limit, total: r.total });
  }

  @Get('listings/:poolAddress')
  @ApiOperation({ summary: "One pool's listings" })
  @ApiOkResponse({ schema: envelope(poolListingSchema, 'list') })
  @ApiBadRequestResponse(BAD)
  @ApiNotFoundResponse(MISSING)
  async poolListings(@Param() p: PoolAddressParam, @Query() query: PoolListingsQueryDto) {
    const criteria = { address: p.poolAddress, networkId: query.network_id, sort: query.sort ?? 'price_asc', status: query.status ?? 'active' } as const;
    return ok(await this.queries.execute<PoolListingsQuery, PoolListing[]>(new PoolListingsQuery(criteria)));
  }

  @Get('stats/:poolAddress')
  @ApiOperation({ summary: 'Pool marketplace statistics; volumes over rolling windows ending now' })
  @ApiOkResponse({ schema: envelope(statsSchema, 'one') })
  @ApiBadRequestResponse(BAD)
  @ApiNotFoundResponse(MISSING)
  async stats(@Param() p: PoolAddressParam, @Query() query: NetworkQuery) {
    const criteria = { address: p.poolAddress, networkId: query.network_id };
    return ok(await this.queries.execute<MarketplaceStatsQuery, MarketplaceStats>(new MarketplaceStatsQuery(criteria)));
  }
}
