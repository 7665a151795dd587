import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req, UseGuards } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { envelope } from '../openapi/schema-parts';
import { createdKeySchema, listedKeySchema, revokedKeySchema, rotatedKeySchema } from './openapi-schemas';
import { maskApiKey, type CreatedKey, type ListedKey, type WalletKey } from '@dob/auth';
import { CreateApiKeyCommand, ListApiKeysQuery, RevokeApiKeyCommand, RotateApiKeyCommand } from './auth.handlers';
import { ok } from '../http/envelope';
import { KeyRequestDto } from './dto/auth.dto';
import { WalletJwtGuard, type WalletSession } from '../access/wallet-jwt';

/** API key management of the JWT's wallet (a Bearer JWT, no API key: docs/decisions.md#d6). */
@ApiTags('auth')
@ApiBearerAuth('jwt')
@UseGuards(WalletJwtGuard)
@Controller('auth/keys')
export class KeysController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an API key (at most 10 active per wallet); the key is shown once' })
  @ApiCreatedResponse({ schema: envelope(createdKeySchema, 'one') })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR: label, scopes, or the 10-key limit (revoke a key first)' })
  async create(@Req() req: { user: WalletSession }, @Body() body: KeyRequestDto) {
    const command = new CreateApiKeyCommand(req.user.wallet, { label: body.label, scopes: body.scopes });
    const { key, record } = await this.commands.execute<CreateApiKeyCommand, CreatedKey>(command);
    return ok({ key_id: record.keyId, key, label: record.label, scopes: record.scopes, created_at: record.createdAt });
  }

  @Get()
  @ApiOperation({ summary: "The wallet's active keys, masked" })
  @ApiOkResponse({ schema: envelope(listedKeySchema, 'list') })
  async list(@Req() req: { user: WalletSession }) {
    const keys = await this.queries.execute<ListApiKeysQuery, ListedKey[]>(new ListApiKeysQuery(req.user.wallet));
    return ok(
      keys.map((k) => ({
        key_id: k.keyId,
        key_masked: maskApiKey(k.keyPrefix, k.keyLast4),
        label: k.label,
        scopes: k.scopes,
        created_at: k.createdAt,
        last_used_at: k.lastUsedAt,
      })),
    );
  }

  @Delete(':keyId')
  @ApiOperation({ summary: 'Revoke a key; it stops working before this returns' })
  @ApiOkResponse({ schema: envelope(revokedKeySchema, 'one') })
  @ApiResponse({ status: 404, description: 'NOT_FOUND: no such key on this wallet' })
  async revoke(@Req() req: { user: WalletSession }, @Param('keyId') keyId: string) {
    const k = await this.commands.execute<RevokeApiKeyCommand, WalletKey>(new RevokeApiKeyCommand(req.user.wallet, keyId));
    return ok({ key_id: k.keyId, revoked: true, revoked_at: k.revokedAt });
  }

  @Post(':keyId/rotate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Rotate a key: a new value (shown once); the old one stops working before this returns' })
  @ApiOkResponse({ schema: envelope(rotatedKeySchema, 'one') })
  @ApiResponse({ status: 404, description: 'NOT_FOUND: no such key on this wallet' })
  async rotate(@Req() req: { user: WalletSession }, @Param('keyId') keyId: string) {
    const { key, record } = await this.commands.execute<RotateApiKeyCommand, CreatedKey>(new RotateApiKeyCommand(req.user.wallet, keyId));
    return ok({ key_id: record.keyId, key, label: record.label, scopes: record.scopes, rotated_at: record.rotatedAt });
  }
}
