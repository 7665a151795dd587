import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { WEBHOOK_EVENTS } from '@dob/webhooks';

// Shapes only; the rules (HTTPS, SSRF, known events, secret ≥ 16, 5 per key) live in WebhookService so every
// transport applies the same ones and names the problem.

export class RegisterWebhookDto {
  @ApiProperty({ example: 'https://agent.example.com/hooks/dob', description: 'HTTPS only; must not point at private, loopback, link-local or CGNAT addresses' })
  @IsString()
  url!: string;

  @ApiProperty({ type: [String], enum: WEBHOOK_EVENTS, example: ['marketplace_sale_completed'] })
  @IsArray()
  @IsString({ each: true })
  events!: string[];

  @ApiProperty({ minLength: 16, writeOnly: true, description: 'HMAC key; stored encrypted, never returned' })
  @IsString()
  secret!: string;
}

export class UpdateWebhookDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  url?: string;

  @ApiPropertyOptional({ type: [String], enum: WEBHOOK_EVENTS, description: 'Replaces the list' })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  events?: string[];

  @ApiPropertyOptional({ minLength: 16, writeOnly: true })
  @IsOptional()
  @IsString()
  secret?: string;

  @ApiPropertyOptional({ description: 'true re-enables the webhook and resets failure_count' })
  @IsOptional()
  @IsBoolean()
  is_active?: boolean;
}

export class DeliveriesQueryDto {
  @ApiPropertyOptional({ type: Number, default: 1, minimum: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  page?: number;

  @ApiPropertyOptional({ type: Number, default: 20, minimum: 1, maximum: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}
