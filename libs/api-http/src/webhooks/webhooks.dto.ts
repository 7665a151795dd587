import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsOptional, IsString } from 'class-validator';
import { WEBHOOK_EVENTS } from '@dob/webhooks';
import { PageQuery } from '../http/page-query.dto';

// Shapes only; the rules (HTTPS, SSRF, known events, secret ≥ 16, 5 per key) live in WebhookService so every
// transport applies the same ones and names the problem.

export class RegisterWebhookDto {
  @ApiProperty({
    example: 'https://agent.example.com/hooks/dob',
    description: 'HTTPS only; must not point at private, loopback, link-local or CGNAT addresses',
  })
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

export class DeliveriesQueryDto extends PageQuery {}
