import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { maskApiKey } from '@dob/auth';
import { ok } from '../http/envelope';
import { API_AUTH, type ApiAuthDependencies } from './api-auth.dependencies';
import { KeyRequestDto } from './dto/auth.dto';
import { WalletJwtGuard, type WalletSession } from './wallet-jwt';

/** API key management of the JWT's wallet (spec: "Bearer JWT required, no API key"). */
@ApiTags('auth')
@ApiBearerAuth('jwt')
@UseGuards(WalletJwtGuard)
@Controller('auth/keys')
export class KeysController {
  constructor(@Inject(API_AUTH) private readonly auth: ApiAuthDependencies) {}

  @Post()
  @HttpCode(201)
  async create(@Req() req: { user: WalletSession }, @Body() body: KeyRequestDto) {
    const { key, record } = await this.auth.keys.createKey(req.user.wallet, { ...body, origin: 'key_management' });
    return ok({ key_id: record.keyId, key, label: record.label, scopes: record.scopes, created_at: record.createdAt });
  }

  @Get()
  async list(@Req() req: { user: WalletSession }) {
    const keys = await this.auth.keys.listKeys(req.user.wallet);
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
  async revoke(@Req() req: { user: WalletSession }, @Param('keyId') keyId: string) {
    const k = await this.auth.keys.revokeKey(req.user.wallet, keyId);
    return ok({ key_id: k.keyId, revoked: true, revoked_at: k.revokedAt });
  }

  @Post(':keyId/rotate')
  @HttpCode(200)
  async rotate(@Req() req: { user: WalletSession }, @Param('keyId') keyId: string) {
    const { key, record } = await this.auth.keys.rotateKey(req.user.wallet, keyId);
    return ok({ key_id: record.keyId, key, label: record.label, scopes: record.scopes, rotated_at: record.rotatedAt });
  }
}
