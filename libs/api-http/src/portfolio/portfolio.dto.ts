import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { HISTORY_TYPES, LISTING_STATUSES } from '@dob/read-models';
import { PagedNetworkQuery } from '../http/query-params.dto';

export class PortfolioListingsQueryDto extends PagedNetworkQuery {
  @ApiPropertyOptional({ enum: LISTING_STATUSES, default: 'active' })
  @IsOptional()
  @IsIn(LISTING_STATUSES)
  status?: (typeof LISTING_STATUSES)[number];
}

export class HistoryQueryDto extends PagedNetworkQuery {
  @ApiPropertyOptional({ enum: HISTORY_TYPES })
  @IsOptional()
  @IsIn(HISTORY_TYPES)
  type?: (typeof HISTORY_TYPES)[number];
}
