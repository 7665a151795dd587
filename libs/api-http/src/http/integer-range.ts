import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/**
 * Every integer the API accepts has a range, checked before it reaches a query or a contract call: an unbounded
 * integer once answered 500 (PostgreSQL "value out of range for type integer" for network_id=9007199254740993).
 * The same bounds go into the OpenAPI document (`openApiRange`), and a test walks the document so no integer
 * parameter or body field is left without both.
 */
export interface IntegerRange {
  readonly min: number;
  readonly max: number;
}

/** PostgreSQL `integer`: network ids are stored in such columns. */
export const NETWORK_ID: IntegerRange = { min: 1, max: 2_147_483_647 };
/** Pages beyond any real result set are refused rather than turned into huge OFFSETs. */
export const PAGE: IntegerRange = { min: 1, max: 1_000_000 };
/** The page size (docs/agent-api.md#conventions): default 20, maximum 100. */
export const PAGE_LIMIT: IntegerRange = { min: 1, max: 100 };
/** Share counts: JSON numbers are exact only up to 2^53 − 1, so larger ones would be silently rounded. */
export const SHARES: IntegerRange = { min: 1, max: Number.MAX_SAFE_INTEGER };

/** class-validator: an integer within `range`. Query values arrive as strings and are converted first. */
export function IntegerIn(range: IntegerRange, options: { fromQuery?: boolean } = {}): PropertyDecorator {
  const checks = [IsInt(), Min(range.min), Max(range.max)];
  return applyDecorators(...(options.fromQuery ? [Type(() => Number), ...checks] : checks));
}

/** The same bounds for @ApiProperty. */
export function openApiRange(range: IntegerRange): { type: 'integer'; minimum: number; maximum: number; format: 'int64' | 'int32' } {
  return { type: 'integer', minimum: range.min, maximum: range.max, format: range.max > 2_147_483_647 ? 'int64' : 'int32' };
}
