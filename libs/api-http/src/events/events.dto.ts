import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { MAX_FEED_PAGE, WEBHOOK_EVENTS } from '@dob/webhooks';
import { IntegerIn, openApiRange, type IntegerRange } from '../http/integer-range';

const FEED_LIMIT: IntegerRange = { min: 1, max: MAX_FEED_PAGE };

/** Filters shared by the feed's pages and its stream. */
export class EventFilterQueryDto {
  @ApiPropertyOptional({ description: `Comma-separated event types (${WEBHOOK_EVENTS.join(', ')}); default all`, example: 'marketplace_sale_completed' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  types?: string;

  @ApiPropertyOptional({ description: 'Comma-separated pool addresses; default all' })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  pools?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'], description: "Only events naming the API key's wallet (seller, buyer, sender, receiver, creator)" })
  @IsOptional()
  @IsIn(['true', 'false'])
  mine?: 'true' | 'false';

  @ApiPropertyOptional({
    description: 'Cursor: the id of the last event seen ("commit:prepare"). Pages: default the oldest kept; the stream: default now (or Last-Event-ID)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  after?: string;
}

export class EventPageQueryDto extends EventFilterQueryDto {
  @ApiPropertyOptional({ ...openApiRange(FEED_LIMIT), default: 100 })
  @IsOptional()
  @IntegerIn(FEED_LIMIT, { fromQuery: true })
  limit?: number;
}
