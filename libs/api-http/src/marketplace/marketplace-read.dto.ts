import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { LISTING_SORTS, LISTING_STATUSES, POOL_LISTING_SORTS } from '@dob/read-models';
import { NetworkQuery, PagedNetworkQuery } from '../http/query-params.dto';

export class ListingsQueryDto extends PagedNetworkQuery {
  @ApiPropertyOptional({ description: 'Payment token symbol (e.g. USDC) or token contract address', maxLength: 64 })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  payment_token?: string;

  @ApiPropertyOptional({ enum: LISTING_SORTS, default: 'created_desc' })
  @IsOptional()
  @IsIn(LISTING_SORTS)
  sort?: (typeof LISTING_SORTS)[number];

  @ApiPropertyOptional({ enum: LISTING_STATUSES, default: 'active' })
  @IsOptional()
  @IsIn(LISTING_STATUSES)
  status?: (typeof LISTING_STATUSES)[number];
}

export class PoolListingsQueryDto extends NetworkQuery {
  @ApiPropertyOptional({ enum: POOL_LISTING_SORTS, default: 'price_asc' })
  @IsOptional()
  @IsIn(POOL_LISTING_SORTS)
  sort?: (typeof POOL_LISTING_SORTS)[number];

  @ApiPropertyOptional({ enum: LISTING_STATUSES, default: 'active' })
  @IsOptional()
  @IsIn(LISTING_STATUSES)
  status?: (typeof LISTING_STATUSES)[number];
}
