import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { PageQuery } from './page-query.dto';
import { StrKey } from '@stellar/stellar-sdk';
import { IsOptional, ValidateBy, type ValidationOptions } from 'class-validator';
import { IntegerIn, NETWORK_ID, openApiRange } from './integer-range';

/** A Stellar contract address (C…, checksum verified with the SDK's StrKey). */
export function IsStellarContract(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isStellarContract',
      validator: {
        validate: (v: unknown) => typeof v === 'string' && StrKey.isValidContract(v),
        defaultMessage: (a) => `${a?.property} must be a Stellar contract address (C…, 56 characters, valid checksum)`,
      },
    },
    options,
  );
}

/** Query values arrive as strings: numeric ones are converted, then checked as integers (so "1.5", "abc" fail). */
export class NetworkQuery {
  @ApiPropertyOptional({ ...openApiRange(NETWORK_ID), description: 'Network id (9 Stellar Testnet, 10 Stellar Mainnet)', example: 9 })
  @IsOptional()
  @IntegerIn(NETWORK_ID, { fromQuery: true })
  network_id?: number;
}

/** The pool of a marketplace or portfolio route (`/…/:poolAddress`). */
export class PoolAddressParam {
  @ApiProperty({ description: 'Pool contract address (C…)' })
  @IsStellarContract()
  poolAddress!: string;
}

/** Network filter + the pagination (docs/agent-api.md#conventions), as one query DTO (validation and OpenAPI metadata of both). */
export class PagedNetworkQuery extends IntersectionType(NetworkQuery, PageQuery) {}

export const paging = (q: { page?: number; limit?: number }) => ({ page: q.page ?? 1, limit: q.limit ?? 20 });
