import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

/** Request bodies of the spec's Marketplace trade and Crowdfunding tables (amount rules live in libs/trading). */
class NetworkBody {
  @ApiProperty({ example: 9, description: 'Stellar network: 9 testnet, 10 mainnet' })
  @IsInt()
  network_id!: number;
}

export class PrepareBuyDto extends NetworkBody {
  @ApiProperty({ description: 'sale_address of the listing (SALE_…)' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  listing_id!: string;

  @ApiPropertyOptional({ description: 'Shares to buy; defaults to all available' })
  @IsOptional()
  @IsInt()
  amount?: number;
}

export class PrepareListDto extends NetworkBody {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(64) pool_address!: string;
  @ApiProperty() @IsInt() shares_amount!: number;
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
