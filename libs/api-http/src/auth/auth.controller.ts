import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { envelope, obj } from '../openapi/schema-parts';
import { challengeSchema, nonceSchema, registeredSchema, tokenSchema } from './openapi-schemas';
import { ok } from '../http/envelope';
import { type CreatedKey, type IssuedChallenge } from '@dob/auth';
import { IssueChallengeCommand, IssueWalletTokenCommand, RegisterAgentCommand } from './auth.handlers';
import { NonceRequestDto, RegisterDto, TokenRequestDto } from './dto/auth.dto';
import { ClientBucket } from '../access/current-agent.decorator';

/** Unauthenticated wallet flows (limited per IP by the request gate). */
@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(private readonly commands: CommandBus) {}

  @Get('challenge/:wallet')
  @ApiOperation({ summary: 'A single-use challenge for the wallet to sign (5 minutes)' })
  @ApiOkResponse({ schema: envelope(challengeSchema, 'one') })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR: not a Stellar account public key (G…)' })
  @ApiResponse({
    status: 429,
    description: 'RATE_LIMIT_EXCEEDED: over the rate limit, or the wallet holds its maximum of outstanding challenges; Retry-After says when to try again',
  })
  async challenge(@Param('wallet') wallet: string, @ClientBucket() requester: string) {
    const c = await this.commands.execute<IssueChallengeCommand, IssuedChallenge>(new IssueChallengeCommand(wallet, requester));
    return ok({
      wallet: c.wallet,
      message: c.message,
      nonce: c.nonce,
      issued_at: c.issuedAt.toISOString(),
      expires_at: c.expiresAt.toISOString(),
      expires_in: c.expiresIn,
    });
  }

  /** Dob's NEW flow: a signed challenge buys an API key directly (201, key shown once, top-level message). */
  @Post('register')
  @HttpCode(201)
  @ApiOperation({ summary: 'A signed challenge buys an API key, shown once' })
  @ApiCreatedResponse({ schema: { allOf: [envelope(registeredSchema, 'one'), obj({ message: { type: 'string' } })] } })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR naming the field; key limit reached' })
  @ApiResponse({ status: 401, description: 'UNAUTHORIZED: no live challenge for the wallet, or the signature does not verify' })
  async register(@Body() body: RegisterDto) {
    const command = new RegisterAgentCommand(body.wallet, body.signature, { label: body.label, scopes: body.scopes });
    const { key, record } = await this.commands.execute<RegisterAgentCommand, CreatedKey>(command);
    return {
      success: true,
      data: {
        wallet: body.wallet,
        api_key: {
          key_id: record.keyId,
          key,
          key_prefix: record.keyPrefix,
          label: record.label,
          scopes: record.scopes,
          rate_limit_rpm: record.rateLimitRpm,
          created_at: record.createdAt,
        },
      },
      message: 'Agent registered. Store your API key securely — it cannot be retrieved again.',
    };
  }

  /** Dob's OLD flow, step 1: the same kind of challenge, in Dob's nonce shape. */
  @Post('nonce')
  @HttpCode(200)
  @ApiOperation({ summary: "A challenge in Dob's nonce shape (for /auth/token)" })
  @ApiOkResponse({ schema: envelope(nonceSchema, 'one') })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR: not a Stellar account public key (G…)' })
  @ApiResponse({
    status: 429,
    description: 'RATE_LIMIT_EXCEEDED: over the rate limit, or the wallet holds its maximum of outstanding challenges; Retry-After says when to try again',
  })
  async nonce(@Body() body: NonceRequestDto, @ClientBucket() requester: string) {
    const c = await this.commands.execute<IssueChallengeCommand, IssuedChallenge>(new IssueChallengeCommand(body.wallet_address, requester));
    return ok({ nonce: c.nonce, message: c.message, expires_at: c.expiresAt.toISOString() });
  }

  /** A signed challenge (from /auth/nonce or /auth/challenge) buys a 15-minute JWT for key management. */
  @Post('token')
  @HttpCode(200)
  @ApiOperation({ summary: 'A signed challenge buys a 15-minute JWT for key management' })
  @ApiOkResponse({ schema: envelope(tokenSchema, 'one') })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR naming the field' })
  @ApiResponse({ status: 401, description: 'UNAUTHORIZED: no live challenge for the wallet, or the signature does not verify' })
  async token(@Body() body: TokenRequestDto) {
    const command = new IssueWalletTokenCommand(body.wallet, body.signature);
    const { token, expiresAt } = await this.commands.execute<IssueWalletTokenCommand, { token: string; expiresAt: Date }>(command);
    return ok({ token, token_type: 'Bearer', expires_at: expiresAt.toISOString() });
  }
}
