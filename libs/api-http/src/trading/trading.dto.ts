import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { IntegerIn, NETWORK_ID, SHARES, openApiRange } from '../http/integer-range';

/** Request bodies of the marketplace trade and crowdfunding endpoints (amount rules live in libs/trading). */
class NetworkBody {
  @ApiProperty({ ...openApiRange(NETWORK_ID), example: 9, description: 'Stellar network: 9 testnet, 10 mainnet' })
  @IntegerIn(NETWORK_ID)
  network_id!: number;
}

export class PrepareBuyDto extends NetworkBody {
  @ApiProperty({ description: 'sale_address of the listing (SALE_…)' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  listing_id!: string;

  @ApiPropertyOptional({ ...openApiRange(SHARES), description: 'Shares to buy; defaults to all available' })
  @IsOptional()
  @IntegerIn(SHARES)
  amount?: number;
}

export class PrepareListDto extends NetworkBody {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(64) pool_address!: string;
  @ApiProperty(openApiRange(SHARES)) @IntegerIn(SHARES) shares_amount!: number;
  @ApiProperty({ example: '1.50', description: 'Decimal string in payment-token units' }) @IsString() @IsNotEmpty() @MaxLength(64) price_per_share!: string;
  @ApiProperty({ example: 'USDC', description: 'Token symbol (or contract address)' }) @IsString() @IsNotEmpty() @MaxLength(64) payment_token!: string;
}

export class PrepareCancelDto extends NetworkBody {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(64) listing_id!: string;
}

export class PrepareContributeDto extends NetworkBody {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(64) pool_address!: string;
  @ApiProperty({ example: '100.00', description: 'Decimal string in payment-token units' }) @IsString() @IsNotEmpty() @MaxLength(64) amount!: string;
}

export class PrepareReclaimDto extends NetworkBody {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(64) pool_address!: string;
}

export class SubmitDto extends NetworkBody {
  @ApiProperty({ description: 'The prepared transaction, signed locally (base64 XDR envelope)' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(64 * 1024)
  signed_xdr!: string;
}
