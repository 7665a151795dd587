import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IntegerIn, PAGE, PAGE_LIMIT, openApiRange } from './integer-range';

/** The pagination parameters (docs/agent-api.md#conventions) for every list endpoint: page ≥ 1 (default 1), limit 1–100 (default 20). */
export class PageQuery {
  @ApiPropertyOptional({ ...openApiRange(PAGE), default: 1 })
  @IsOptional()
  @IntegerIn(PAGE, { fromQuery: true })
  page?: number;

  @ApiPropertyOptional({ ...openApiRange(PAGE_LIMIT), default: 20 })
  @IsOptional()
  @IntegerIn(PAGE_LIMIT, { fromQuery: true })
  limit?: number;
}
