import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsIn, IsNotEmpty, IsString, MaxLength } from 'class-validator';

const SCOPES = ['read', 'trade'] as const;

export class KeyRequestDto {
  @ApiProperty({ maxLength: 64, example: 'my-trading-bot' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  label!: string;

  @ApiProperty({ type: [String], enum: SCOPES, example: ['read', 'trade'] })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(2)
  @IsIn(SCOPES, { each: true })
  scopes!: ('read' | 'trade')[];
}

export class RegisterDto extends KeyRequestDto {
  @ApiProperty({ description: 'Stellar account public key (G…)' })
  @IsString()
  @MaxLength(128)
  wallet!: string;

  @ApiProperty({ description: 'Hex ed25519 signature of the challenge message (raw or SEP-53)' })
  @IsString()
  @MaxLength(256)
  signature!: string;
}

export class NonceRequestDto {
  @ApiProperty({ description: 'Stellar account public key (G…)' })
  @IsString()
  @MaxLength(128)
  wallet_address!: string;
}

export class TokenRequestDto {
  @ApiProperty()
  @IsString()
  @MaxLength(128)
  wallet!: string;

  @ApiProperty()
  @IsString()
  @MaxLength(256)
  signature!: string;
}
