import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { ACCESS_TYPES, CROWDFUNDING_SORTS, CROWDFUNDING_STATUSES, POOL_EVENT_TYPES, POOL_SORTS, ROUND_STATUSES } from '@dob/read-models';
import { IsStellarContract, NetworkQuery, PagedNetworkQuery } from '../http/query-params.dto';

export class PoolListQueryDto extends PagedNetworkQuery {
  @ApiPropertyOptional({ description: 'Matches pool name or ticker (case-insensitive substring)', maxLength: 100 })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  search?: string;

  @ApiPropertyOptional({ enum: ACCESS_TYPES })
  @IsOptional()
  @IsIn(ACCESS_TYPES)
  access_type?: (typeof ACCESS_TYPES)[number];

  @ApiPropertyOptional({ enum: POOL_SORTS, default: 'created_desc' })
  @IsOptional()
  @IsIn(POOL_SORTS)
  sort?: (typeof POOL_SORTS)[number];
}

export class CrowdfundingQueryDto extends NetworkQuery {
  @ApiPropertyOptional({ enum: CROWDFUNDING_SORTS, default: 'deadline_asc' })
  @IsOptional()
  @IsIn(CROWDFUNDING_SORTS)
  sort?: (typeof CROWDFUNDING_SORTS)[number];

  @ApiPropertyOptional({ enum: CROWDFUNDING_STATUSES, default: 'active', description: 'active campaigns only (default) or all' })
  @IsOptional()
  @IsIn(CROWDFUNDING_STATUSES)
  status?: (typeof CROWDFUNDING_STATUSES)[number];
}

export class PoolAddressParams {
  @ApiProperty({ description: 'Pool contract address (C…)' })
  @IsStellarContract()
  address!: string;
}

export class DistributionsQueryDto extends PagedNetworkQuery {
  @ApiPropertyOptional({
    enum: ROUND_STATUSES,
    description: 'Computed from the clock: pending before claimable_from, completed until expires_at, expired after',
  })
  @IsOptional()
  @IsIn(ROUND_STATUSES)
  status?: (typeof ROUND_STATUSES)[number];
}

export class PoolEventsQueryDto extends PagedNetworkQuery {
  @ApiPropertyOptional({ enum: POOL_EVENT_TYPES })
  @IsOptional()
  @IsIn(POOL_EVENT_TYPES)
  event_type?: (typeof POOL_EVENT_TYPES)[number];
}
